package storage

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// toastThreshold is PostgreSQL's TOAST_TUPLE_THRESHOLD with 8 kB pages: a
// row larger than this has its values compressed, then moved out of line,
// until it fits.
const toastThreshold = 2032

// WriteJSON writes the report as indented JSON.
func WriteJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// WriteText writes the report for a person: per target the sizes, then
// the other storage choices, the histogram and the documents TOASTed.
func WriteText(w io.Writer, r *Report) error {
	fmt.Fprintf(w, "%s: %s documents\n", r.Source, db.Thousands(int64(r.Documents)))
	for _, t := range r.Targets {
		name := t.Target + " (" + t.Backend
		if t.Version != "" {
			name += " " + t.Version
		}
		fmt.Fprintf(w, "\n%s), stored as %s\n", name, t.Format)
		writeSizes(w, &t.Figures, true)
		for _, c := range t.Choices {
			if c.Missing != "" {
				fmt.Fprintf(w, "  %s: %s\n", c.Choice, c.Missing)
				continue
			}
			fmt.Fprintf(w, "  %s:\n", c.Choice)
			writeSizes(w, &c, false)
		}
		if t.ToastedShare != nil {
			writeHistogram(w, &t.Figures)
		}
		for _, n := range t.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
	}
	fmt.Fprintln(w, "\nThe queries behind every figure: --format json.")
	return nil
}

// writeSizes prints one choice's figures; all adds the text and format
// sizes, the same under every choice.
func writeSizes(w io.Writer, f *Figures, all bool) {
	row := func(label string, d *Dist) {
		fmt.Fprintf(w, "    %-28s %10s %10s %10s\n", label, sizeText(d.Median), sizeText(d.P90), sizeText(d.Max))
	}
	fmt.Fprintf(w, "    %-28s %10s %10s %10s\n", "bytes per document", "median", "p90", "max")
	if all {
		row("as text", f.BytesText)
		row("format, uncompressed", f.BytesFormat)
	}
	row("as stored", f.BytesStored)
	if p := f.PerDocument; p != nil {
		var parts []string
		absent := map[string]bool{}
		for _, x := range []struct {
			name string
			v    *db.Figure
		}{{"table", p.Table}, {"TOAST", p.Toast}, {"indexes", p.Indexes}, {"database file", p.File}} {
			switch {
			case x.v == nil:
			case !x.v.OK():
				if x.name != "TOAST" && !absent[x.v.Absent] {
					absent[x.v.Absent] = true
					parts = append(parts, x.name+" absent ("+x.v.Absent+")")
				}
			default:
				parts = append(parts, x.name+" "+sizeText(x.v.Value))
			}
		}
		fmt.Fprintf(w, "    per document: %s\n", strings.Join(parts, ", "))
	}
	if s := f.ToastedShare; s != nil {
		fmt.Fprintf(w, "    %s\n", sharesText(s))
	}
	if c := f.ChunksPerDoc; c != nil && c.Count > 0 {
		fmt.Fprintf(w, "    TOAST chunks per out-of-line document: median %.0f, p90 %.0f, max %.0f\n", c.Median, c.P90, c.Max)
	}
	for _, k := range f.KeyReads {
		place := ""
		if k.Place != "" {
			place = ", " + k.Place
		}
		cost := k.Buffers.Absent
		if k.Buffers.OK() {
			cost = fmt.Sprintf("%.0f buffers", k.Buffers.Value)
		}
		fmt.Fprintf(w, "    reading field %q of the %s document (%s, %s%s): %s\n", k.Field, k.Which, k.Document, sizeText(float64(k.Bytes)), place, cost)
	}
}

// sharesText says where the values went.
func sharesText(s *Shares) string {
	pct := func(v *float64) string { return fmt.Sprintf("%.1f%%", 100**v) }
	switch {
	case s.InLine == nil && s.Compressed == nil:
		return fmt.Sprintf("stored: %s out of line", pct(s.OutOfLine))
	case s.InLine == nil:
		return fmt.Sprintf("stored: %s compressed (in-line or out of line), %s out of line", pct(s.Compressed), pct(s.OutOfLine))
	}
	return fmt.Sprintf("stored: %s in-line, %s compressed in-line, %s out of line", pct(s.InLine), pct(s.CompressedInLine), pct(s.OutOfLine))
}

// writeHistogram draws the sizes in the stored format, the TOAST
// threshold between the buckets, and names the documents TOASTed.
func writeHistogram(w io.Writer, f *Figures) {
	top := 0
	for _, b := range f.Histogram {
		top = max(top, b.Count)
	}
	fmt.Fprintf(w, "  %s sizes (uncompressed):\n", f.Format)
	started := false
	for _, b := range f.Histogram {
		if b.Count == 0 && !started {
			continue
		}
		started = true
		if b.From == 2048 {
			fmt.Fprintf(w, "    %s TOAST threshold: a row over %s bytes is compressed, then moved out of line\n", strings.Repeat("-", 8), db.Thousands(toastThreshold))
		}
		bar := 0
		if top > 0 {
			bar = (b.Count*40 + top - 1) / top
		}
		fmt.Fprintf(w, "    %9s-%-9s B %7s %s\n", db.Thousands(b.From), db.Thousands(b.To), db.Thousands(int64(b.Count)), strings.Repeat("#", bar))
	}
	if f.ToastedCount == 0 {
		fmt.Fprintln(w, "  No document was compressed or moved out of line: every one stays under the TOAST threshold.")
		return
	}
	more := ""
	if f.ToastedCount > len(f.Toasted) {
		more = ", …"
	}
	fmt.Fprintf(w, "  %s of %s documents were compressed or moved out of line (TOASTed): %s%s\n",
		db.Thousands(int64(f.ToastedCount)), db.Thousands(int64(f.BytesStored.Count)), strings.Join(f.Toasted, ", "), more)
}

// sizeText formats a size: 812 B, 1.9 kB, 12 kB, 1.2 MB.
func sizeText(v float64) string {
	switch {
	case v < 1000:
		return fmt.Sprintf("%.0f B", v)
	case v < 10_000:
		return fmt.Sprintf("%.1f kB", v/1000)
	case v < 1_000_000:
		return fmt.Sprintf("%.0f kB", v/1000)
	}
	return fmt.Sprintf("%.1f MB", v/1e6)
}
