package storage

import (
	"slices"

	"github.com/docbench/docbench/internal/db"
)

// Report is what `docbench storage` answers.
type Report struct {
	Source    string   `json:"source"`
	Documents int      `json:"documents"`
	Targets   []Target `json:"targets"`
}

// Target is one target's figures: under the server's default storage, and
// under each other choice it offers.
type Target struct {
	Target  string `json:"target"`
	Backend string `json:"backend"`
	Version string `json:"version,omitempty"`
	Figures
	Choices []Figures `json:"choices,omitempty"`
}

// Figures are the documents' sizes under one storage choice, from the
// server's own figures (Queries says which).
type Figures struct {
	// Choice is "default" or the choice's name ("STORAGE MAIN").
	Choice string `json:"choice"`
	// Missing says why the server cannot store them so.
	Missing string `json:"missing,omitempty"`
	// Format is the stored format ("jsonb", "SQLite JSONB").
	Format string `json:"format,omitempty"`
	// BytesText is the documents' size as JSON text, as loaded.
	BytesText *Dist `json:"bytes_text,omitempty"`
	// BytesFormat is their size in Format before compression.
	BytesFormat *Dist `json:"bytes_format,omitempty"`
	// BytesStored is their size as stored (compressed, if they were).
	BytesStored *Dist `json:"bytes_stored,omitempty"`
	// PerDocument are the relations' sizes divided by the documents.
	PerDocument *PerDocument `json:"per_document,omitempty"`
	// ToastedShare says where the values went; nil where there is no TOAST.
	ToastedShare *Shares `json:"toasted_share,omitempty"`
	// ChunksPerDoc is the TOAST chunks of each document stored out of line.
	ChunksPerDoc *Dist `json:"chunks_per_doc,omitempty"`
	// Toasted lists the first documents the server stored compressed or
	// out of line ("line 12"), ToastedCount all of them.
	Toasted      []string `json:"toasted,omitempty"`
	ToastedCount int      `json:"toasted_count,omitempty"`
	// KeyReads are the server's cost of reading one field of the median
	// and of the largest document.
	KeyReads []KeyRead `json:"key_reads,omitempty"`
	// Histogram is the documents' count by size in Format.
	Histogram []Bucket          `json:"histogram,omitempty"`
	Queries   map[string]string `json:"queries,omitempty"`
	Notes     []string          `json:"notes,omitempty"`
}

// KeyRead is what reading one field of one document cost the server.
type KeyRead struct {
	// Document names it ("line 12"); Which says "median" or "largest".
	Document string `json:"document"`
	Which    string `json:"which"`
	// Bytes is its size in the stored format; Place where it is stored.
	Bytes int64  `json:"bytes"`
	Place string `json:"place,omitempty"`
	Field string `json:"field"`
	// Buffers are the pages the server touched, the TOAST's included.
	Buffers db.Figure `json:"buffers"`
	Query   string    `json:"query"`
}

// Dist is a distribution of per-document figures.
type Dist struct {
	Median float64 `json:"median"`
	P90    float64 `json:"p90"`
	Max    float64 `json:"max"`
	Mean   float64 `json:"mean"`
	Count  int     `json:"count"`
}

// PerDocument are relation sizes per document, in bytes.
type PerDocument struct {
	Table   *db.Figure `json:"table,omitempty"`
	Toast   *db.Figure `json:"toast,omitempty"`
	Indexes *db.Figure `json:"indexes,omitempty"`
	// File is the whole database file (SQLite, whose file docbench made).
	File *db.Figure `json:"file,omitempty"`
}

// Shares say where the documents' values are stored, as shares of all
// documents; a share the server cannot give is nil.
type Shares struct {
	InLine           *float64 `json:"in_line"`
	CompressedInLine *float64 `json:"compressed_in_line"`
	OutOfLine        *float64 `json:"out_of_line"`
	// Compressed is in-line or out of line.
	Compressed *float64 `json:"compressed"`
}

// Bucket is the documents whose size is in [From, To).
type Bucket struct {
	From  int64 `json:"from"`
	To    int64 `json:"to"`
	Count int   `json:"count"`
}

// maxListed bounds Figures.Toasted.
const maxListed = 10

// figures turns the server's per-document sizes into distributions; text
// are the documents' sizes as text, label names document i (nil: the
// documents stored compressed or out of line are counted, not named).
func figures(choice string, s *db.StorageSizes, text []int64, label func(int) string) *Figures {
	n := float64(len(text))
	f := &Figures{Choice: choice, Format: s.Format, Queries: s.Queries, Notes: s.Notes,
		BytesText: dist(text), BytesFormat: dist(s.Formatted), BytesStored: dist(s.Stored),
		Histogram: histogram(s.Formatted),
		PerDocument: &PerDocument{Table: perDoc(s.Table, n), Toast: perDoc(s.Toast, n),
			Indexes: perDoc(s.Indexes, n), File: perDoc(s.File, n)}}
	if s.Place != nil {
		f.ToastedShare = shares(s.Place, len(s.Chunks))
		for i, p := range s.Place {
			if p == db.CompressedInLine || p == db.OutOfLine || p == db.Compressed {
				f.ToastedCount++
				if label != nil && len(f.Toasted) < maxListed {
					f.Toasted = append(f.Toasted, label(i))
				}
			}
		}
	}
	if s.Chunks != nil {
		f.ChunksPerDoc = dist(s.Chunks)
	}
	return f
}

// perDoc divides a relation's size by the documents.
// A figure the server did not fill in (zero, without unit) is nil.
func perDoc(f db.Figure, n float64) *db.Figure {
	switch {
	case !f.OK():
		return &f
	case f.Unit == "" && f.Value == 0:
		return nil
	}
	v := db.Val(f.Value/n, db.Bytes)
	return &v
}

// shares counts the places; outOfLine is the values the TOAST relation
// holds, for a server that cannot tell them per document.
func shares(place []byte, outOfLine int) *Shares {
	var counts [256]int
	for _, p := range place {
		counts[p]++
	}
	n := float64(len(place))
	share := func(c int) *float64 { v := float64(c) / n; return &v }
	switch {
	case counts[db.PlaceUnknown] > 0:
		return &Shares{OutOfLine: share(outOfLine)}
	case counts[db.Compressed] > 0 || counts[db.Uncompressed] > 0:
		return &Shares{OutOfLine: share(outOfLine), Compressed: share(counts[db.Compressed])}
	}
	return &Shares{InLine: share(counts[db.InLine]), CompressedInLine: share(counts[db.CompressedInLine]),
		OutOfLine: share(counts[db.OutOfLine])}
}

// dist is the median, 90th percentile (nearest rank), maximum and mean.
func dist(v []int64) *Dist {
	if len(v) == 0 {
		return &Dist{}
	}
	s := slices.Clone(v)
	slices.Sort(s)
	rank := func(p float64) float64 {
		i := int(p*float64(len(s))+0.999999) - 1
		return float64(s[max(0, min(i, len(s)-1))])
	}
	var sum float64
	for _, x := range s {
		sum += float64(x)
	}
	return &Dist{Median: rank(0.5), P90: rank(0.9), Max: float64(s[len(s)-1]), Mean: sum / float64(len(s)), Count: len(s)}
}

// histogram counts sizes in buckets doubling from 64 bytes, with 2 kB
// (the TOAST threshold's size) a bucket boundary.
func histogram(v []int64) []Bucket {
	if len(v) == 0 {
		return nil
	}
	var out []Bucket
	for lo, hi := int64(0), int64(64); ; lo, hi = hi, hi*2 {
		c := 0
		for _, x := range v {
			if x >= lo && x < hi {
				c++
			}
		}
		out = append(out, Bucket{From: lo, To: hi, Count: c})
		if hi > slices.Max(v) {
			return out
		}
	}
}
