package mysql

import (
	"context"
	"runtime"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/netio"
	"github.com/docbench/docbench/internal/testutil"
)

// mysql.io (or its older names, with their MySQL meaning) reaches the
// sessions, decided for each phase's threads (SetThreads), not for those
// the store was opened with; each session says the mode it ran.
func TestIOModeFollowsThreads(t *testing.T) {
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	ctx := context.Background()
	many := 2*runtime.GOMAXPROCS(0) + 1
	for _, c := range []struct {
		props   map[string]string
		threads []int
		want    []netio.Mode
	}{
		{nil, []int{1, many, 1}, []netio.Mode{netio.Blocking, netio.Poller, netio.Blocking}}, // the default: auto
		{map[string]string{"mysql.io": "poller"}, []int{1, many}, []netio.Mode{netio.Poller, netio.Poller}},
		{map[string]string{"mysql.io": "auto"}, []int{1, many, 1}, []netio.Mode{netio.Blocking, netio.Poller, netio.Blocking}},
		{map[string]string{"mysql.io": "blocking"}, []int{many}, []netio.Mode{netio.Blocking}},
		{map[string]string{"mysql.io": "net"}, []int{1}, []netio.Mode{netio.Net}},
		{map[string]string{"mysql.blockingio": "false"}, []int{1}, []netio.Mode{netio.Poller}},
		{map[string]string{"mysql.rawio": "false", "mysql.blockingio": "true"}, []int{1}, []netio.Mode{netio.Net}},
	} {
		st := openStore(t, url, c.props)
		if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
			t.Fatal(err)
		}
		for i, n := range c.threads {
			if err := st.SetThreads(ctx, n); err != nil {
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got := sess.(db.IOModer).IOMode()
			sess.Close()
			if got != string(c.want[i]) || st.HoldsThreads() != (c.want[i] == netio.Blocking) {
				t.Errorf("%v, %d threads: session %s, HoldsThreads %v; want %s", c.props, n, got, st.HoldsThreads(), c.want[i])
			}
		}
	}
}
