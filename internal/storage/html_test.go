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
	if !strings.Contains(doc.String(), "SQLite JSONB") || !strings.Contains(doc.String(), "alignment padding") ||
		strings.Count(doc.String(), `<table class="kinds">`) != 3 || !strings.Contains(doc.String(), `text-anchor="middle"`) {
		t.Errorf("byte map page:\n%s", doc.String())
	}
}

// binKinds: a map of more segments than pixels, drawn a column per pixel
// of the kind most of its bytes are, covers every byte once.
func TestBinKinds(t *testing.T) {
	var segs []Segment
	for i := range 1000 {
		segs = append(segs, Segment{Offset: 10 * i, Bytes: 1, Kind: kindNode}, Segment{Offset: 10*i + 1, Bytes: 9, Kind: kindString})
	}
	cols := binKinds(segs, 100)
	off := 0
	for _, c := range cols {
		if c.Offset != off || c.Kind != kindString {
			t.Fatalf("column %+v at offset %d", c, off)
		}
		off += c.Bytes
	}
	if len(cols) != 100 || off != 10000 {
		t.Errorf("%d columns of %d bytes, want 100 of 10,000", len(cols), off)
	}
}
