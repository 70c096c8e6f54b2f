package runner

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/server"
	"github.com/docbench/docbench/internal/server/servertest"
)

// killable is a private server a test may crash.
type killable interface {
	Kill() error
	Stop() error
}

// A database that dies under a run: docbench stops within a few seconds of
// the failure streak, keeps what it measured (complete false, the reason),
// and fails; operations before the crash are counted as they went. Each
// real server the suite starts is killed with SIGKILL in the middle of a
// 60-second run. (SQLite runs inside docbench's own process and cannot die
// apart from it; its failures are covered by TestFailedOperationsAreNotThroughput.)
func TestDatabaseDiesMidRun(t *testing.T) {
	starts := map[string]func(ctx context.Context) (string, killable, error){
		"postgres-embedded": func(ctx context.Context) (string, killable, error) {
			p, err := server.StartPostgres(ctx, server.PostgresOptions{Settings: map[string]string{"fsync": "off"}})
			if err != nil {
				return "", nil, err
			}
			return p.URL, p, nil
		},
		"postgres-debian": func(ctx context.Context) (string, killable, error) {
			p, err := servertest.StartLocalPostgres(ctx, server.PostgresOptions{Settings: map[string]string{"fsync": "off"}})
			if err != nil {
				return "", nil, err
			}
			return p.URL, p, nil
		},
		"mariadb": func(ctx context.Context) (string, killable, error) {
			m, err := server.StartMariaDB(ctx, server.MariaDBOptions{Settings: map[string]string{"innodb_flush_log_at_trx_commit": "0"}})
			if err != nil {
				return "", nil, err
			}
			return m.URL, m, nil
		},
		"mongodb-peer": func(ctx context.Context) (string, killable, error) {
			p, err := servertest.StartMongoPeer(ctx, servertest.MongoPeerOptions{})
			if err != nil {
				return "", nil, err
			}
			return p.URL, p, nil
		},
	}
	for name, start := range starts {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			url, srv, err := start(ctx)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s cannot start: %v", name, err)
				}
				t.Skipf("%s cannot start: %v", name, err)
			}
			t.Cleanup(func() { _ = srv.Stop() })
			props := map[string]string{"recordcount": "300", "operationcount": "0"}
			store, wl, docOps := setup(t, url, props)
			if _, err := Execute(ctx, store, wl, docOps, Options{Phase: Load, Threads: 2}); err != nil {
				t.Fatal(err)
			}
			// Killed once a status line counts operations done.
			ran, killedAt := newUnderWay(), make(chan time.Time, 1)
			go func() {
				select {
				case <-ran.c:
				case <-ctx.Done():
					return
				}
				killedAt <- time.Now()
				if err := srv.Kill(); err != nil {
					t.Errorf("kill: %v", err)
				}
			}()
			began := time.Now()
			out, err := Execute(ctx, store, wl, docOps, Options{Phase: Run, Threads: 2, Duration: 60 * time.Second,
				FailStreak: 2 * time.Second, Drain: 10 * time.Second, Status: time.Second, Stderr: ran})
			ended := time.Now()
			var killed time.Time
			select {
			case killed = <-killedAt:
			default:
			}
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("err = %v, want the phase failed", err)
			}
			if out == nil {
				t.Fatal("no partial outcome")
			}
			if out.Complete || out.Stopped != "failure streak" || !strings.Contains(out.Failure, "no operation succeeded") {
				t.Fatalf("complete %v, stopped %q, failure %q", out.Complete, out.Stopped, out.Failure)
			}
			// The failure streak (not the 60 s duration) ended the run, as
			// checked above; a bound far above the streak and the drain
			// catches a hang without timing a busy machine.
			if after := ended.Sub(killed); killed.IsZero() || after > 30*time.Second {
				t.Fatalf("stopped %v after the kill (run took %v); want within a few seconds", after, ended.Sub(began))
			}
			if out.Succeeded() == 0 || out.Failed == 0 {
				t.Fatalf("%d ok and %d failed: operations before and after the crash must both be counted", out.Succeeded(), out.Failed)
			}
			t.Logf("%s: stopped %v after the kill: %d ok, %d failed; %s", name, ended.Sub(killed).Round(time.Millisecond),
				out.Succeeded(), out.Failed, out.Failure)
		})
	}
}
