package postgres

import (
	"context"
	"runtime"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/testutil"
)

// pg.io (or its older names) reaches the sessions, decided for each
// phase's threads (SetThreads), not for those the store was opened with;
// each session says the mode it ran.
func TestIOModeFollowsThreads(t *testing.T) {
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	ctx := context.Background()
	many := 2*runtime.GOMAXPROCS(0) + 1
	for _, c := range []struct {
		props   map[string]string
		threads []int
		want    []netio.Mode
	}{
		{nil, []int{1, many}, []netio.Mode{netio.Poller, netio.Poller}},
		{map[string]string{"pg.io": "auto"}, []int{1, many, 1}, []netio.Mode{netio.Blocking, netio.Poller, netio.Blocking}},
		{map[string]string{"pg.io": "blocking"}, []int{many}, []netio.Mode{netio.Blocking}},
		{map[string]string{"pg.io": "poller"}, []int{1}, []netio.Mode{netio.Poller}},
		{map[string]string{"pg.io": "net"}, []int{1}, []netio.Mode{netio.Net}},
		{map[string]string{"pg.blockingio": "true"}, []int{many}, []netio.Mode{netio.Blocking}},
		{map[string]string{"pg.blockingio": "false"}, []int{1}, []netio.Mode{netio.Poller}},
		{map[string]string{"pg.rawio": "false"}, []int{1}, []netio.Mode{netio.Net}},
	} {
		st := openStore(t, url, c.props)
		for i, n := range c.threads {
			if err := st.SetThreads(ctx, n); err != nil {
				t.Fatal(err)
			}
			sess := openSession(t, ctx, st, "field0")
			got := sess.(db.IOModer).IOMode()
			if got != string(c.want[i]) || st.HoldsThreads() != (c.want[i] == netio.Blocking) {
				t.Errorf("%v, %d threads: session %s, HoldsThreads %v; want %s", c.props, n, got, st.HoldsThreads(), c.want[i])
			}
		}
	}
}

// A value pg.io does not know fails the open, naming the property.
func TestIOModeBadValue(t *testing.T) {
	_, err := db.Open(context.Background(), db.OpenRequest{Target: "postgres://127.0.0.1:1/x", Props: map[string]string{"pg.io": "kernel"}})
	if err == nil || !strings.Contains(err.Error(), "pg.io=kernel") {
		t.Fatalf("pg.io=kernel: %v", err)
	}
}
