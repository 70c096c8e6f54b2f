package mongodb

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// BenchmarkSession measures the client side of the core operations against
// the MongoDB wire peer: ns/op includes the round trip, allocs/op is
// docbench's and the driver's.
func BenchmarkSession(b *testing.B) {
	st, err := db.Open(context.Background(), db.Config{Target: testutil.FreshMongoDatabase(b, testutil.MongoDB(b))})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	dbtest.Bench(b, st, "")
}
