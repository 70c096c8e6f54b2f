package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/workload"
)

// preflightTimeout bounds the reachability check of one named server.
const preflightTimeout = 15 * time.Second

// checkOutDir refuses to write a study into a directory that already holds
// something, unless force: earlier results are never silently overwritten.
func checkOutDir(dir string, force bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("--out %s: %w", dir, err)}
	case len(entries) > 0 && !force:
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("--out %s is not empty: it may hold earlier results; choose another directory, or --force to write over it", dir)}
	}
	return nil
}

// preflight connects once to every server the user named by URL (the
// study file's targets and -t), before the long work starts: an unreachable
// server is a failure said first, not a study of "not applicable" points.
// Managed servers (postgres:embedded, mariadb:local) and SQLite files are
// not checked here: the study starts or creates them, and a machine that
// cannot is the one case where a target is not applicable.
func (a *app) preflight(ctx context.Context, f *study.File, extra []string) error {
	var urls []string
	for _, t := range f.Targets {
		urls = append(urls, t.Target)
	}
	for _, arg := range extra {
		_, t := study.ExtraTarget(arg)
		urls = append(urls, t)
	}
	var errs []error
	for _, u := range urls {
		if !strings.Contains(u, "://") {
			continue
		}
		cfg, err := config(workload.NewProperties())
		if err != nil {
			return err
		}
		cctx, cancel := context.WithTimeout(ctx, preflightTimeout)
		st, err := a.open(cctx, u, cfg, false)
		cancel()
		if err != nil {
			var bad *engine.BadInput
			if errors.As(err, &bad) {
				return err
			}
			errs = append(errs, fmt.Errorf("%w", err))
			continue
		}
		st.Close()
	}
	if len(errs) > 0 {
		return &ExitError{Code: exitFailed, Err: fmt.Errorf("cannot reach a named target, nothing was run: %w", errors.Join(errs...))}
	}
	return nil
}
