package mysql

import (
	"context"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// BenchmarkSession measures the client side of the core operations on
// MariaDB (generated layout): ns/op includes the round trip, allocs/op is
// docbench's plus database/sql's and the driver's.
func BenchmarkSession(b *testing.B) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(b, testutil.MariaDB(b))
	st, err := db.Open(ctx, db.Config{Target: url})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		b.Fatal(err)
	}
	sess, err := st.NewSession(ctx)
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
	for _, op := range []struct {
		name string
		run  func() error
	}{
		{"read", func() (err error) { buf, err = sess.Read(ctx, key, nil, buf[:0]); return err }},
		{"read-fields", func() (err error) { buf, err = sess.Read(ctx, key, fields, buf[:0]); return err }},
		{"update", func() error { return sess.Update(ctx, key, u) }},
		{"scan", func() error { _, err := sess.Scan(ctx, key, 10, nil); return err }},
	} {
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
