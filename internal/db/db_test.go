package db_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all"
)

// A property only another backend understands is never silently ignored.
func TestForeignOptionsAreRefused(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	for props, want := range map[string]map[string]string{
		"property index=gin (an option of postgres) is not supported by sqlite":          {"index": "gin"},
		"property server.synchronous_commit=off (server.… configures":                    {"server.synchronous_commit": "off"},
		"property pg.compression=lz4 (an option of postgres) is not supported by sqlite": {"pg.compression": "lz4"},
	} {
		_, err := db.Open(context.Background(), db.Config{Target: target, Props: want})
		if err == nil || !strings.Contains(err.Error(), props) {
			t.Errorf("%v: err %v, want %q", want, err, props)
		}
	}
	// Other backends' defaults and shared options are fine.
	st, err := db.Open(context.Background(), db.Config{Target: target, Props: map[string]string{"index": "btree", "doctype": "text", "layout": "column"}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db": "postgres://u:***@h:5432/db",
		"mongodb://u@h/db":              "mongodb://u@h/db",
		"sqlite:/tmp/x.db":              "sqlite:/tmp/x.db",
		"mysql://root:p@ss@127.0.0.1/x": "mysql://root:***@127.0.0.1/x",
	} {
		if got := db.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
