package postgres

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
	"github.com/docbench/docbench/internal/testutil"
)

// postgres:embedded@VERSION and pg.version resolve to a zonky version; a
// version docbench does not know is one line naming the target and the
// versions it knows.
func TestEmbeddedVersion(t *testing.T) {
	for _, tc := range []struct {
		target string
		props  map[string]string
		want   string // version, or a piece of the error
		ok     bool
	}{
		{"postgres:embedded", nil, "18.6.0", true},
		{"postgres:embedded@18", nil, "18.6.0", true},
		{"postgres:embedded@16", nil, "16.15.0", true},
		{"postgres:embedded@9.6", nil, "9.6.24", true},
		{"postgres:embedded@13.23.0", nil, "13.23.0", true},
		{"postgres:embedded@13.22.0", nil, "13.22.0", true}, // pinned, not in the table
		{"POSTGRES:EMBEDDED@10", nil, "10.23.0", true},
		{"postgres:embedded", map[string]string{"pg.version": "13"}, "13.23.0", true},
		{"postgres:embedded@13", map[string]string{"pg.version": "13.23.0"}, "13.23.0", true},
		{"postgres://u@h/db", nil, "", false},
	} {
		v, ok, err := embeddedVersion(tc.target, tc.props)
		if err != nil || v != tc.want || ok != tc.ok {
			t.Errorf("%s %v: %q %v %v, want %q %v", tc.target, tc.props, v, ok, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		target string
		props  map[string]string
		want   string
	}{
		{"postgres:embedded@8", nil, `target postgres:embedded@8: PostgreSQL "8" is not a version docbench knows: a major version (9.6, 10, 11, 12, 13, 14, 15, 16, 17, 18)`},
		{"postgres:embedded@abc", nil, `target postgres:embedded@abc: PostgreSQL "abc"`},
		{"postgres:embedded@19", nil, `target postgres:embedded@19: PostgreSQL "19"`},
		{"postgres:embedded@19.1.0", nil, `"19.1.0" is not a version`},
		{"postgres:embedded@13.x.0", nil, `"13.x.0" is not a version`},
		{"postgres:embedded@13.23", nil, `"13.23" is not a version`},
		{"postgres:embedded@", nil, "target postgres:embedded@: want postgres:embedded@VERSION"},
		{"postgres:embedded", map[string]string{"pg.version": "7"}, `property pg.version=7: PostgreSQL "7"`},
		{"postgres:embedded@13", map[string]string{"pg.version": "16"}, "name different PostgreSQL versions"},
		{"postgres://u@h/db", map[string]string{"pg.version": "13"}, "property pg.version=13: it chooses the server of postgres:embedded"},
	} {
		_, _, err := embeddedVersion(tc.target, tc.props)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s %v: %v, want one line with %q", tc.target, tc.props, err, tc.want)
		}
		if err := db.Check(tc.target, tc.props); err == nil {
			t.Errorf("db.Check(%s, %v) accepted it", tc.target, tc.props)
		}
	}
	if !isEmbedded("postgres:embedded@13") || isEmbedded("postgres:embeddedx") || isEmbedded("postgres://h/embedded@x") {
		t.Error("isEmbedded")
	}
}

// An older server (PostgreSQL 13) loads, reads, updates and answers every
// query kind, or says which version the operator needs.
func TestOlderServer(t *testing.T) {
	server := testutil.Server(t, "postgres:embedded@13")
	for name, props := range map[string]map[string]string{
		"column":         {"layout": "column"},
		"document-gin":   {"layout": "document", "index": "gin"},
		"relational":     {"layout": "relational"},
		"pathop-arrow":   {"pg.pathop": "arrow", "pg.arrayop": "exists"},
		"jsonpath-array": {"pg.arrayop": "jsonpath_exists", "pg.pathop": "jsonpath"},
		"text":           {"doctype": "text"},
	} {
		t.Run(name, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, server), props)
			info, err := st.Info(context.Background())
			if err != nil || !strings.HasPrefix(info.Version, "13.") {
				t.Fatalf("version %q, %v", info.Version, err)
			}
			dbtest.Run(t, st)
		})
	}
	// What PostgreSQL 13 lacks is refused before anything runs, with the
	// version it needs.
	for _, tc := range []struct {
		props map[string]string
		want  string
	}{
		{map[string]string{"pg.pathop": "subscript"}, "pg.pathop=subscript (jsonb subscripting needs PostgreSQL 14) is not supported by PostgreSQL 13.23"},
		{map[string]string{"pg.compression": "lz4"}, "needs PostgreSQL 14"},
		{map[string]string{"pg.descendantop": "sqljson"}, "needs PostgreSQL 17"},
	} {
		st := openStore(t, testutil.FreshDatabase(t, server), tc.props)
		err := st.Setup(context.Background(), db.Schema{Table: "usertable", Fields: []string{"field0"}}, true)
		var ns *db.ErrNotSupported
		if !errors.As(err, &ns) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: Setup: %v, want not supported: %q", tc.props, err, tc.want)
		}
		if _, err := st.NewSession(context.Background()); !errors.As(err, &ns) {
			t.Errorf("%v: NewSession: %v, want not supported", tc.props, err)
		}
	}
}
