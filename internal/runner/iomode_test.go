package runner

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// sizing is a store whose sessions' I/O mode depends on the threads it was
// last sized for, as PostgreSQL's and MySQL's do with io=auto.
type sizing struct {
	db.Store
	threads int
	opened  int // sessions opened since the last SetThreads
}

func (s *sizing) SetThreads(_ context.Context, n int) error {
	s.threads, s.opened = n, 0
	return nil
}

func (s *sizing) NewSession(ctx context.Context) (db.Session, error) {
	sess, err := s.Store.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	s.opened++
	mode := "blocking"
	if s.threads > 2 {
		mode = "poller"
	}
	return moded{sess, mode}, nil
}

type moded struct {
	db.Session
	mode string
}

func (m moded) IOMode() string { return m.mode }

// Each phase sizes the store for its own threads before it opens its
// sessions, and records the I/O mode they ran: one store serves phases of
// 1, 8 and 1 threads as if opened for each.
func TestPhaseSizesTheStoreForItsThreads(t *testing.T) {
	null, wl, gen := setup(t, "null:", map[string]string{"recordcount": "100", "operationcount": "50"})
	store := &sizing{Store: null}
	for _, c := range []struct {
		threads int
		want    string
	}{{1, "blocking"}, {8, "poller"}, {1, "blocking"}} {
		out, err := Execute(context.Background(), store, wl, gen, Options{Phase: Run, Threads: c.threads})
		if err != nil {
			t.Fatal(err)
		}
		if store.threads != c.threads || store.opened != c.threads {
			t.Errorf("%d threads: store sized for %d, %d sessions opened after", c.threads, store.threads, store.opened)
		}
		if out.IOMode != c.want {
			t.Errorf("%d threads: I/O mode %q recorded, want %q", c.threads, out.IOMode, c.want)
		}
	}
}
