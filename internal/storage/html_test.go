package storage

import (
	"bytes"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// TestWriteHTML: the page is offline (no address it loads), draws the
// histogram with the TOAST threshold, and --doc's byte maps.
func TestWriteHTML(t *testing.T) {
	docs := corpus()
	sizes := &db.StorageSizes{Format: "jsonb", Formatted: []int64{20, 100, 6000, 40000}, Stored: []int64{20, 100, 900, 40000},
		Place: []byte{db.InLine, db.InLine, db.CompressedInLine, db.OutOfLine}, Chunks: []int64{21}}
	r := &Report{Source: "test", Documents: 4, Targets: []Target{{Target: "postgres:embedded", Backend: "postgres", Figures: *figures("default", sizes, docs.TextSizes(), docs.Label)}}}
	var page bytes.Buffer
	if err := WriteHTML(&page, r, nil); err != nil {
		t.Fatal(err)
	}
	maps, err := DocMaps(docs.Data[1])
	if err != nil {
		t.Fatal(err)
	}
	var doc bytes.Buffer
	if err := WriteHTML(&doc, r, &DocReport{Document: "test line 2", Formats: maps}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{page.String(), doc.String()} {
		if strings.Contains(p, "src=\"http") || strings.Contains(p, "href=\"http") || !strings.Contains(p, "<svg") {
			t.Errorf("page loads something or draws nothing:\n%.400s", p)
		}
	}
	if !strings.Contains(page.String(), "TOAST threshold") || !strings.Contains(page.String(), "2 of 4 documents were compressed or moved out of line") {
		t.Errorf("histogram page:\n%s", page.String())
	}
	if !strings.Contains(doc.String(), "SQLite JSONB") || !strings.Contains(doc.String(), "alignment padding") {
		t.Errorf("byte map page:\n%s", doc.String())
	}
}
