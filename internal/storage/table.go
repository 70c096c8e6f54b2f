package storage

import (
	"context"
	"fmt"

	"github.com/docbench/docbench/internal/db"
)

// TableFigures are the figures `docbench storage` gives of a table loaded
// by other means (a study's), under the table's own storage: the server
// sizes its documents; text are their sizes as text.
func TableFigures(ctx context.Context, store db.Store, backend, table string, text []int64) (*Figures, error) {
	sizer, ok := store.(db.StorageSizer)
	if !ok {
		return nil, &db.ErrNotSupported{Backend: backend, What: "docbench storage"}
	}
	sizes, err := sizer.StorageSizes(ctx, table, true)
	if err != nil {
		return nil, err
	}
	if len(sizes.Stored) != len(text) || len(sizes.Formatted) != len(text) {
		return nil, fmt.Errorf("the server reports %d documents of the %d loaded", len(sizes.Stored), len(text))
	}
	return figures("default", sizes, text, nil), nil
}

// Cells are the figures of a study's summary: the format, the median
// bytes as text, in the format and as stored, the share of the documents
// compressed or out of line ("" where the server has no TOAST), and the
// median TOAST chunks of a document stored out of line.
func (f *Figures) Cells() []string {
	bytes := func(d *Dist) string {
		if d == nil {
			return ""
		}
		return db.Thousands(int64(d.Median))
	}
	toasted, chunks := "", ""
	if f.ToastedShare != nil {
		if n := f.BytesText.Count; n > 0 && f.ToastedShare.InLine != nil {
			toasted = fmt.Sprintf("%.0f%%", 100*float64(f.ToastedCount)/float64(n))
		} else if s := f.ToastedShare; s.Compressed != nil {
			toasted = fmt.Sprintf("%.0f%% compressed, %.0f%% out of line", 100**s.Compressed, 100**s.OutOfLine)
		} else if s.OutOfLine != nil {
			toasted = fmt.Sprintf("%.0f%% out of line", 100**s.OutOfLine)
		}
		chunks = "0"
		if f.ChunksPerDoc != nil && f.ChunksPerDoc.Count > 0 {
			chunks = fmt.Sprintf("%g", f.ChunksPerDoc.Median)
		}
	}
	return []string{f.Format, bytes(f.BytesText), bytes(f.BytesFormat), bytes(f.BytesStored), toasted, chunks}
}

// CellNames name Cells.
var CellNames = []string{"format", "text B", "format B", "stored B", "compressed or out of line", "chunks/doc"}
