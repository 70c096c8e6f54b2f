package dbtest

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// Bench measures the client side of the core operations on one session of
// the store cfg opens (set up afresh): read, read of fields, partial
// update, scan, stmt, a statement of the user's reading the key (skipped
// when ""), and insert.
// ns/op includes the server's work; allocs/op is docbench's plus the
// driver's. The operations run under a cancellable context, as a run's
// workers do: a context that can never be done would skip the drivers'
// watch of it.
func Bench(b *testing.B, cfg db.OpenRequest, stmt string) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	store, err := db.Open(ctx, cfg)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	if err := store.Setup(ctx, db.Schema{Table: "usertable", Fields: Fields}, true); err != nil {
		b.Fatal(err)
	}
	sess, err := store.NewSession(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer sess.Close()
	key, doc := []byte("user1"), []byte(`{"field0":"`+strings.Repeat("x", 100)+`","field1":"y"}`)
	if err := sess.Insert(ctx, key, doc); err != nil {
		b.Fatal(err)
	}
	buf := make([]byte, 0, 4096)
	fields := []string{"field0", "field1"}
	u := &db.Update{Mode: db.Partial, Paths: []string{"field1"}, Values: [][]byte{[]byte(`"z"`)}}
	n, k := 0, make([]byte, 0, 32)
	ops := []struct {
		name string
		run  func() error
	}{
		{"read", func() (err error) { buf, err = sess.Read(ctx, key, nil, buf[:0]); return err }},
		{"read-fields", func() (err error) { buf, err = sess.Read(ctx, key, fields, buf[:0]); return err }},
		{"update", func() error { return sess.Update(ctx, key, u) }},
		{"scan", func() error { _, err := sess.Scan(ctx, key, 10, nil); return err }},
	}
	type op = struct {
		name string
		run  func() error
	}
	if stmt != "" {
		args := []any{string(key)}
		ops = append(ops, op{"statement", func() error {
			_, err := sess.(db.Statementer).Statement(ctx, stmt, args)
			return err
		}})
	}
	if sc, ok := sess.(db.Scripter); ok && stmt != "" {
		args, script := []any{string(key)}, []string{stmt, stmt}
		ops = append(ops, op{"script", func() error { return sc.Script(ctx, script, args) }})
	}
	ops = append(ops, op{"insert", func() error {
		n++
		k = strconv.AppendInt(append(k[:0], "new"...), int64(n), 10)
		return sess.Insert(ctx, k, doc)
	}})
	for _, op := range ops {
		b.Run(op.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := op.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
