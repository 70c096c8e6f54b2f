package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/server"
	"github.com/docbench/docbench/internal/study"
)

// quickUsage is the one description of --quick (study and quickstart).
const quickUsage = "a smoke run that checks the study works, not figures to quote: one round, 2 s runs, at most the first and last value of each sweep, the study's quick properties (docs/studies.md)"

func (a *app) studyCommand() *cobra.Command {
	var out, scale, pgVersions string
	var quick, force, keep bool
	var targets, with []string
	var prof profileFlags
	cmd := &cobra.Command{
		Use:   "study FILE|NAME [--quick | --scale PROFILE] [--with NAME[=URL]]... [--pg-versions V,V...] [--out DIR] [-t TARGET]...",
		Short: "Run a study (a matrix of targets, workloads, sweeps and rounds) and write its report",
		Long: "Runs a study file, or a built-in study: " + strings.Join(study.Names(), ", ") + `.
Built-in studies run on postgres:embedded and SQLite plus every target named with -t.
The study directory gets the study file as run, one result JSON per (target, point,
round), results.csv, summary.md and report.html. --scale source runs a study at its
source's own sizes (a profile in its scale: section); before it starts, the study prints
the disk and time it expects and refuses when the disks cannot hold it. --with adds an
opt-in target the study declares (with: section), such as --with mariadb or
--with mongodb=mongodb://host/db; claims on one that is not given are "not measurable here".

--pg-versions 10,13,18 reruns the study on those PostgreSQL versions: each
postgres:embedded target with no version of its own becomes one target per
version, named NAME@VERSION (postgres@13, postgres@18), so charts and
compare show a figure across versions; the other targets, and those added
with -t, run once. A claim on such a target is judged on each version
alone ("(PostgreSQL 13)" after its words), and the first screen opens with
the changes between adjacent versions and the claims whose verdict a
version changes. What a version lacks is not measurable there, with the
version it needs.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := study.Load(args[0])
			if err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if cmd.Flags().Changed("pg-versions") {
				vs, err := pgVersionList(pgVersions)
				if err == nil {
					f, err = f.ForPGVersions(vs)
				}
				if err != nil {
					return &ExitError{Code: 2, Err: fmt.Errorf("--pg-versions %s: %v", pgVersions, err)}
				}
			}
			if scale != "" {
				if quick {
					return &ExitError{Code: 2, Err: fmt.Errorf("--scale %s and --quick: choose one", scale)}
				}
				if err := f.ApplyScale(scale); err != nil {
					return &ExitError{Code: 2, Err: err}
				}
			}
			withURLs := map[string]string{}
			reach := append([]string(nil), targets...) // checked before anything runs
			for _, w := range with {
				name, url, _ := strings.Cut(w, "=")
				withURLs[name] = url
				if url != "" {
					reach = append(reach, url)
				}
			}
			if _, err := f.WithTargets(withURLs); err != nil {
				return &ExitError{Code: 2, Err: err}
			}
			if out == "" {
				out = filepath.Join("docbench-results", f.Name+"-"+time.Now().UTC().Format("20060102-150405"))
			} else if err := checkOutParent(out); err != nil {
				return err
			}
			if err := checkOutDir(out, force); err != nil {
				return err
			}
			opts := study.RunOptions{Out: out, Quick: quick, Keep: keep, ExtraTargets: targets, With: withURLs, Log: a.stderr, Engine: a.engine()}
			if err := study.Validate(f, opts); err != nil {
				return &ExitError{Code: exitUsage, Err: err}
			}
			if err := a.preflight(cmd.Context(), f, reach); err != nil {
				return err
			}
			if err := study.CheckTables(cmd.Context(), f, opts); err != nil {
				return notOurs(err)
			}
			return prof.profiled(func() error { return a.runStudy(cmd.Context(), f, opts) })
		},
	}
	fl := cmd.Flags()
	prof.add(fl)
	fl.StringVar(&out, "out", "", "study directory (default ./docbench-results/<study>-<timestamp>/)")
	fl.BoolVar(&quick, "quick", false, quickUsage)
	fl.BoolVar(&force, "force", false, "write into a --out directory that is not empty")
	fl.BoolVar(&keep, "keep", false, "keep the study's tables on its targets (by default each is dropped when the study is done with it)")
	fl.StringArrayVarP(&targets, "target", "t", nil, "also run on this target (repeatable); NAME=TARGET names it in the report, else it is named as written")
	fl.StringVar(&scale, "scale", "", "run at the study's scale profile PROFILE (e.g. source: the source's own sizes)")
	fl.StringArrayVar(&with, "with", nil, "add the study's opt-in target NAME, at URL or its default (repeatable; e.g. mariadb, mongodb=URL)")
	fl.StringVar(&pgVersions, "pg-versions", "", "rerun the study on these PostgreSQL versions (e.g. 10,13,18): each postgres:embedded target becomes NAME@VERSION")
	return cmd
}

// pgVersionList reads --pg-versions: versions docbench knows, each once
// (13 and 13.23.0 are the same).
func pgVersionList(arg string) ([]string, error) {
	var out []string
	seen := map[string]string{}
	for _, v := range strings.Split(arg, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			return nil, fmt.Errorf("want versions separated by commas, such as 10,13,18")
		}
		full, err := server.ResolvePostgresVersion(v)
		if err != nil {
			return nil, err
		}
		if prev, ok := seen[full]; ok {
			return nil, fmt.Errorf("%s and %s are the same version (%s)", prev, v, full)
		}
		seen[full] = v
		out = append(out, v)
	}
	return out, nil
}

func (a *app) runStudy(ctx context.Context, f *study.File, opts study.RunOptions) error {
	out := opts.Out
	fmt.Fprintf(a.stderr, "docbench study %s → %s\n", f.Name, out)
	if f.ScaleName != "" {
		fmt.Fprintf(a.stderr, "scale %s: %s\n", f.ScaleName, f.Scale[f.ScaleName].Says)
	}
	m, err := study.Conduct(ctx, f, opts)
	if m == nil && err != nil {
		return &ExitError{Code: 2, Err: err} // the study's properties: nothing ran
	}
	// What the study found first, then its tables: summary.txt.
	if d, rerr := study.Read(out); rerr == nil {
		a.stdout.Write(append(d.Text(), '\n'))
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, filepath.Join(out, "report.html"))
	if n := m.ThresholdFailures(); n > 0 {
		return &ExitError{Code: ExitThresholds, Err: fmt.Errorf("%d run(s) missed a threshold (see thresholds_failed in %s)", n, filepath.Join(out, "runs.json"))}
	}
	return nil
}

func (a *app) reportCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR | report RESULT.json",
		Short: "Re-render the summaries and report.html of a study directory, or make the HTML report of one result",
		Long: `Given a study directory, report re-renders its results.csv, summary.txt, summary.md
and report.html from its result files (results/…, or a results.tar.gz that holds
them, as the record shipped with docbench's source does). Given the result file of
one load or run (--out), it writes RESULT.html beside it: the figures per operation
and their throughput and p99 second by second.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path := args[0]
			fi, err := os.Stat(path)
			switch {
			case errors.Is(err, fs.ErrNotExist):
				return &ExitError{Code: exitUsage, Err: fmt.Errorf("%s: no such study directory or result file", path)}
			case err == nil && !fi.IsDir():
				return a.reportResult(path)
			}
			if err := study.WriteOutputs(path); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, filepath.Join(path, "report.html"))
			return nil
		},
	}
}

// reportResult writes the HTML report of one result file beside it and
// prints its path.
func (a *app) reportResult(path string) error {
	res, err := report.ReadResult(path)
	if err != nil {
		return &ExitError{Code: 2, Err: err}
	}
	var b bytes.Buffer
	if err := report.RenderHTML(&b, []*report.StudyReport{report.SingleRun(res, filepath.Base(path))}); err != nil {
		return err
	}
	out := strings.TrimSuffix(path, filepath.Ext(path)) + ".html"
	if err := report.WriteFileAtomic(out, b.Bytes()); err != nil {
		return err
	}
	fmt.Fprintln(a.stdout, out)
	return nil
}
