// Package null registers the "null:" backend: it does nothing, so a run
// against it measures the harness itself.
package null

import (
	"context"

	"github.com/docbench/docbench/internal/db"
)

func init() {
	db.Register(db.Backend{
		Name:    "null",
		Schemes: []string{"null"},
		Summary: "does nothing; measures the harness itself",
		Forms:   []db.Form{{Form: "null:", Help: "in-process backend that accepts every operation and stores nothing"}},
		Open: func(context.Context, db.Config) (db.Store, error) {
			return store{}, nil
		},
	})
}

type store struct{}

var _ db.Store = store{}

func (store) Setup(context.Context, db.Schema, bool) error { return nil }
func (store) NewSession(context.Context) (db.Session, error) {
	return session{}, nil
}
func (store) Info(context.Context) (db.Info, error) {
	return db.Info{Backend: "null", Version: "none"}, nil
}
func (store) Close() error { return nil }

type session struct{}

var (
	_ db.Session       = session{}
	_ db.BatchInserter = session{}
	_ db.Querier       = session{}
)

func (session) Insert(context.Context, []byte, []byte) error { return nil }
func (session) InsertBatch(context.Context, [][]byte, [][]byte) error {
	return nil
}
func (session) Read(_ context.Context, _ []byte, _ []string, dst []byte) ([]byte, error) {
	return dst, nil
}
func (session) Update(context.Context, []byte, *db.Update) error { return nil }
func (session) Scan(_ context.Context, _ []byte, count int, _ []string) (int, error) {
	return count, nil
}
func (session) Delete(context.Context, []byte) error { return nil }
func (session) Query(context.Context, *db.Query) (int, error) {
	return 0, nil
}
func (session) Close() error { return nil }
