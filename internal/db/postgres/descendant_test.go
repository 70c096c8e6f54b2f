package postgres

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// TestDescendantForms runs the seeds' "key at any depth" search in each
// form pg.descendantop offers, on both servers: jsonpath everywhere,
// JSON_EXISTS on PostgreSQL 17+ (the embedded 18), jsquery where the
// extension is installed (Debian's postgresql-15-jsquery); a form a server
// cannot run is refused with the reason.
func TestDescendantForms(t *testing.T) {
	ctx := context.Background()
	jsquery15 := fileExists("/usr/share/postgresql/15/extension/jsquery.control")
	for _, tc := range []struct {
		server, op string
		refusal    string // "" = runs
	}{
		{"embedded", "jsonpath", ""},
		{"embedded", "sqljson", ""},
		{"embedded", "jsquery", "no jsquery extension"},
		{"debian", "jsonpath", ""},
		{"debian", "sqljson", "needs PostgreSQL 17"},
		{"debian", "jsquery", map[bool]string{true: "", false: "no jsquery extension"}[jsquery15]},
	} {
		t.Run(tc.server+"/"+tc.op, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, tc.server)), map[string]string{"pg.descendantop": tc.op})
			err := st.Setup(ctx, db.Schema{Table: "usertable", Fields: []string{"a"}}, true)
			if err != nil {
				if tc.refusal != "" && strings.Contains(err.Error(), tc.refusal) {
					return
				}
				t.Fatal(err)
			}
			sess, err := st.NewSession(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer sess.Close()
			for i, d := range []string{
				`{"a":{"b":{"color":"red"}}}`,
				`{"color":"red","x":[{"color":"blue"}]}`,
				`{"x":[{"y":{"color":"red"}}],"n":{"color":3}}`,
				`{"colour":"red"}`,
			} {
				if err := sess.Insert(ctx, fmt.Appendf(nil, "k%d", i), []byte(d)); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range []struct {
				path, value string
				want        int
			}{{"a.b.color", `"red"`, 3}, {"x.color", `"blue"`, 1}, {"n.color", `3`, 1}, {"a.color", `"green"`, 0}} {
				n, err := sess.(db.Querier).Query(ctx, &db.Query{Kind: db.QueryDescendant, Path: c.path, Value: []byte(c.value)})
				if tc.refusal != "" {
					if err == nil || !strings.Contains(err.Error(), tc.refusal) {
						t.Fatalf("%s: err %v, want a refusal saying %q", tc.op, err, tc.refusal)
					}
					return
				}
				if err != nil || n != c.want {
					t.Errorf("%s = %s at any depth: %d rows, %v; want %d", db.LastSegment(c.path), c.value, n, err, c.want)
				}
			}
		})
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
