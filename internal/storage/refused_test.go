package storage

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

// refusedFile is 1,200 documents over 1,201 lines (line 2 blank), line
// 733's the one bad, as a batch of 500 carries it among 499 good ones.
func refusedFile(t *testing.T, bad string) *Docs {
	var b strings.Builder
	for n := 1; n <= 1201; n++ {
		switch n {
		case 2:
		case 733:
			b.WriteString(bad)
		default:
			b.WriteString(`{"n": 1, "s": "text"}`)
		}
		b.WriteString("\n")
	}
	docs, err := ReadNDJSON(strings.NewReader(b.String()), "docs.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// A document the server refuses within a batch is one line naming its
// line, a *BadInput (exit 2): PostgreSQL's jsonb has no \u0000, SQLite's
// JSON nests to depth 1,000 at most; the scratch table is dropped.
func TestRefusedDocumentNamesItsLine(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 1001) + "1" + strings.Repeat("}", 1001)
	for name, c := range map[string]struct{ target, bad string }{
		"postgres": {testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")), `{"s": "nul \u0000"}`},
		"sqlite":   {"sqlite:" + filepath.Join(t.TempDir(), "s.db"), deep},
		"mariadb":  {testutil.FreshMySQLDatabase(t, testutil.MariaDB(t)), strings.Repeat(`{"a":`, 40) + "1" + strings.Repeat("}", 40)},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Measure(context.Background(), Request{Target: c.target, DefaultOnly: true}, refusedFile(t, c.bad))
			var bad *BadInput
			if !errors.As(err, &bad) || !strings.HasPrefix(err.Error(), "docs.ndjson: loading line 733: ") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("got %v, want one line naming line 733 (a *BadInput)", err)
			}
			t.Log(err)
		})
	}
}
