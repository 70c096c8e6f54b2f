package mongodb

import (
	"context"
	"strconv"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// The pool is sized for each phase's threads (SetThreads), not for those
// the store was opened with: past 100 threads one connection per worker,
// back to the driver's default after; the sessions of the new client
// work.
func TestPoolFollowsThreads(t *testing.T) {
	st, _ := openPeer(t, "")
	ctx := context.Background()
	if err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"field0"}}, true); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		threads int
		want    string
	}{{150, "150"}, {4, "100 (driver default)"}} {
		if err := st.SetThreads(ctx, c.threads); err != nil {
			t.Fatal(err)
		}
		info, err := st.Info(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if got := info.Settings["maxPoolSize"]; got != c.want {
			t.Errorf("%d threads: maxPoolSize %q, want %q", c.threads, got, c.want)
		}
		sess, err := st.NewSession(ctx)
		if err != nil {
			t.Fatal(err)
		}
		key := []byte("k" + strconv.Itoa(c.threads))
		if err := sess.Insert(ctx, key, []byte(`{"field0":"x"}`)); err != nil {
			t.Fatal(err)
		}
		if _, err := sess.Read(ctx, key, nil, nil); err != nil {
			t.Fatal(err)
		}
		sess.Close()
	}
}
