package cli

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/testutil"
)

// A load stopped midway records so on its table, on every backend that
// marks its tables: a run after it, and a capacity search, refuse in one
// line with exit 2 and run nothing; --force runs; a load to its end lets
// the run go on.
func TestRunRefusesAnUnfinishedLoad(t *testing.T) {
	for _, c := range []struct {
		name   string
		target func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "stopped.db") }},
		{"postgres", func(t *testing.T) string { return testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")) }},
		{"mariadb", func(t *testing.T) string { return testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)) }},
		{"mongodb", func(t *testing.T) string { return testutil.FreshMongoDatabase(t, testutil.MongoDB(t)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			target := c.target(t)
			props := []string{"-p", "recordcount=400", "-p", "threadcount=1"}
			m := stoppedLoad(t, target, 150, props)
			if m.Load != db.LoadStopped || m.Loaded != 150 || m.Records != 400 {
				t.Fatalf("the mark after a load stopped at 150 of 400 records: %+v", m)
			}
			const refusal = "docbench: the load stopped at 150 of 400 records: load again (or --force)\n"
			run := append([]string{"run", "-t", target, "-P", "workloadc", "-p", "operationcount=100"}, props...)
			stdout, stderr, code := docbench(t, run...)
			if code != 2 || stderr != refusal || stdout != "" {
				t.Fatalf("run after the stopped load: exit %d, stdout %q, stderr %q; want exit 2, nothing on stdout, stderr %q", code, stdout, stderr, refusal)
			}
			capacity := append([]string{"capacity", "-t", target, "-P", "workloadc", "--out", "", "--html", ""}, props...)
			if stdout, stderr, code := docbench(t, capacity...); code != 2 || stderr != refusal || stdout != "" {
				t.Fatalf("capacity after the stopped load: exit %d, stdout %q, stderr %q", code, stdout, stderr)
			}
			stdout, stderr, code = docbench(t, append(run, "--force", "--max-error-share", "100%")...)
			if code != 0 || !strings.Contains(stdout, "READ") ||
				!strings.Contains(stdout, "note: run with --force on an unfinished load: the load stopped at 150 of 400 records\n") {
				t.Fatalf("run --force: exit %d, want 0 and a note of the unfinished load\n%s\n%s", code, stdout, stderr)
			}
			load := append([]string{"load", "-t", target, "-P", "workloadc"}, props...)
			if _, stderr, code := docbench(t, load...); code != 0 {
				t.Fatalf("load: exit %d\n%s", code, stderr)
			}
			if _, stderr, code := docbench(t, run...); code != 0 {
				t.Fatalf("run after a complete load: exit %d\n%s", code, stderr)
			}
		})
	}
}

// A load whose inserts fail midway, over its error limit, leaves its
// table marked stopped at the records it stored.
func TestFailedLoadIsMarkedStopped(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "failed.db")
	m := stoppedLoadBy(t, target, 100, []string{"-p", "recordcount=400", "-p", "threadcount=1"}, false)
	if m.Load != db.LoadStopped || m.Loaded != 100 || m.Records != 400 {
		t.Fatalf("the mark after a load that failed after 100 of 400 records: %+v", m)
	}
}

// stoppedLoad loads target through the engine, as `docbench load` does,
// and cancels the load once n records are stored (an interrupt); it
// returns the mark the load left on its table.
func stoppedLoad(t *testing.T, target string, n int64, props []string) db.Mark {
	t.Helper()
	return stoppedLoadBy(t, target, n, props, true)
}

// stoppedLoadBy is stoppedLoad; without interrupt, every insert after the
// n-th fails instead, and the load fails on its error limit.
func stoppedLoadBy(t *testing.T, target string, n int64, props []string, interrupt bool) db.Mark {
	t.Helper()
	var overrides []string
	for i := 1; i < len(props); i += 2 {
		overrides = append(overrides, props[i])
	}
	p, err := propsFromFlags([]string{"workloadc"}, overrides)
	if err != nil {
		t.Fatal(err)
	}
	ph := &engine.Phase{Kind: runner.Load, Target: target, Props: p, Recreate: true, Quiet: true,
		Opts: runner.Options{Phase: runner.Load, Seed: 1, MaxErrorShare: 0.01}}
	pr, err := engine.Prepare(ph)
	if err != nil {
		t.Fatal(err)
	}
	e := &engine.Engine{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := e.Open(ctx, target, pr.Config, false)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	stop := cancel
	if !interrupt {
		stop = func() {}
	}
	_, err = e.Run(ctx, &stopAfter{Store: store, n: n, stop: stop}, ph, pr)
	if interrupt != errors.Is(err, runner.ErrInterrupted) || err == nil {
		t.Fatalf("the stopped load (interrupted: %v): %v", interrupt, err)
	}
	m, ok, err := store.(db.Remarker).ReadMark(context.Background(), pr.DocOps.Schema().Table)
	if err != nil || !ok {
		t.Fatalf("reading the mark: %v (docbench's: %v)", err, ok)
	}
	return m
}

// stopAfter is a store whose sessions stop the phase (cancel its context)
// once n records are inserted: an interrupt at a known point.
type stopAfter struct {
	db.Store
	n    int64
	done atomic.Int64
	stop func()
}

func (s *stopAfter) NewSession(ctx context.Context) (db.Session, error) {
	sess, err := s.Store.NewSession(ctx)
	return &stopSession{Session: sess, s: s}, err
}

func (s *stopAfter) ReadMark(ctx context.Context, table string) (db.Mark, bool, error) {
	return s.Store.(db.Remarker).ReadMark(ctx, table)
}

func (s *stopAfter) Remark(ctx context.Context, table string, m db.Mark) error {
	return s.Store.(db.Remarker).Remark(ctx, table, m)
}

var errStopped = errors.New("stopped by the test")

type stopSession struct {
	db.Session
	s *stopAfter
}

func (s *stopSession) Insert(ctx context.Context, key, doc []byte) error {
	if s.s.done.Load() >= s.s.n {
		s.s.stop()
		return errStopped
	}
	err := s.Session.Insert(ctx, key, doc)
	if err == nil && s.s.done.Add(1) == s.s.n {
		s.s.stop()
	}
	return err
}

// A server that keeps a table's first comment (the MySQL 8 peer) cannot
// record a load's end: its loads go untracked, and runs on them run.
func TestRunOnAnUntrackedLoad(t *testing.T) {
	target := testutil.FreshMySQLDatabase(t, testutil.MySQLPeer(t))
	props := []string{"-p", "recordcount=100", "-p", "threadcount=1"}
	if m := stoppedLoad(t, target, 50, props); m.Load != "" {
		t.Fatalf("the peer's mark records a load state: %+v", m)
	}
	run := append([]string{"run", "-t", target, "-P", "workloadc", "-p", "operationcount=50", "--max-error-share", "100%"}, props...)
	if _, stderr, code := docbench(t, run...); code != 0 {
		t.Fatalf("run on an untracked load: exit %d\n%s", code, stderr)
	}
}
