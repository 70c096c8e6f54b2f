// Package null registers the "null:" backend: it does nothing, so a run
// against it measures the harness itself. With null.delay every operation
// takes at least that long, a known service time for tests of measurement
// and of merging shard results.
package null

import (
	"context"
	"fmt"
	"time"

	"github.com/docbench/docbench/internal/db"
)

func init() {
	db.Register(db.Backend{
		Name:    "null",
		Schemes: []string{"null"},
		Summary: "does nothing; measures the harness itself",
		Forms:   []db.Form{{Form: "null:", Help: "in-process backend that accepts every operation and stores nothing"}},
		Options: []db.Option{{Name: "null.delay", Default: "0",
			Help: "every operation sleeps this long (e.g. 200us): a known service time"}},
		Open: func(_ context.Context, cfg db.OpenRequest) (db.Store, error) {
			d, err := time.ParseDuration(cfg.Prop("null.delay", "0s"))
			if err != nil || d < 0 {
				return nil, fmt.Errorf("null.delay=%q: want a duration such as 200us", cfg.Props["null.delay"])
			}
			return store{delay: d}, nil
		},
	})
}

type store struct{ delay time.Duration }

var _ db.Store = store{}

func (store) Setup(context.Context, db.Schema, bool) error { return nil }
func (s store) NewSession(context.Context) (db.Session, error) {
	return &session{delay: s.delay}, nil
}
func (s store) Info(context.Context) (db.Info, error) {
	info := db.Info{Backend: "null", Version: "none"}
	if s.delay > 0 {
		info.Settings = map[string]string{"null.delay": s.delay.String()}
	}
	return info, nil
}
func (store) Close() error { return nil }

type session struct {
	delay time.Duration
	timer *time.Timer
}

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
)

// wait takes the configured delay (nothing when it is 0).
func (s *session) wait(ctx context.Context) error {
	if s.delay <= 0 {
		return nil
	}
	if s.timer == nil {
		s.timer = time.NewTimer(s.delay)
	} else {
		s.timer.Reset(s.delay)
	}
	select {
	case <-s.timer.C:
		return nil
	case <-ctx.Done():
		s.timer.Stop()
		return ctx.Err()
	}
}

func (s *session) Insert(ctx context.Context, _, _ []byte) error { return s.wait(ctx) }
func (s *session) InsertBatch(ctx context.Context, _, _ [][]byte) error {
	return s.wait(ctx)
}
func (s *session) Read(ctx context.Context, _ []byte, _ []string, dst []byte) ([]byte, error) {
	return dst, s.wait(ctx)
}
func (s *session) Update(ctx context.Context, _ []byte, _ *db.Update) error { return s.wait(ctx) }
func (s *session) Scan(ctx context.Context, _ []byte, count int, _ []string) (int, error) {
	return count, s.wait(ctx)
}
func (s *session) Delete(ctx context.Context, _ []byte) error { return s.wait(ctx) }
func (s *session) Query(ctx context.Context, _ *db.Query) (int, error) {
	return 0, s.wait(ctx)
}
func (s *session) Close() error { return nil }
