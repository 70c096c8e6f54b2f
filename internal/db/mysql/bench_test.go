package mysql

import (
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// BenchmarkSession measures the client side of the core operations on
// MariaDB (generated layout): ns/op includes the round trip, allocs/op is
// docbench's plus database/sql's and the driver's.
func BenchmarkSession(b *testing.B) {
	dbtest.Bench(b, db.OpenRequest{Target: testutil.FreshMySQLDatabase(b, testutil.MariaDB(b))}, "SELECT data FROM {table} WHERE ycsb_key = ?")
}
