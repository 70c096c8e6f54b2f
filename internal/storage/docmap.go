package storage

import (
	"fmt"
	"io"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// DocReport is `docbench storage --doc N`: one document's byte map in each
// format, and the servers' own sizes of it.
type DocReport struct {
	Document  string       `json:"document"`
	BytesText int          `json:"bytes_text"`
	Formats   []*ByteMap   `json:"formats"`
	Servers   []ServerSize `json:"servers,omitempty"`
}

// ServerSize is a server's size of the document in its stored format.
type ServerSize struct {
	Target string `json:"target"`
	Format string `json:"format"`
	Bytes  int64  `json:"bytes"`
	Query  string `json:"query,omitempty"`
}

// DocMaps are doc's byte maps in jsonb, SQLite JSONB and BSON.
func DocMaps(doc []byte) ([]*ByteMap, error) {
	var out []*ByteMap
	for _, enc := range []func([]byte) (*ByteMap, error){JSONBMap, SQLiteJSONBMap, BSONMap} {
		m, err := enc(doc)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

// ServerSizeOf is the server's size of a target's only document, from
// its figures.
func ServerSizeOf(t *Target) ServerSize {
	s := ServerSize{Target: t.Target, Format: t.Format, Bytes: int64(t.BytesFormat.Max)}
	for k, q := range t.Queries {
		if strings.HasPrefix(k, "bytes_format") {
			s.Query = q
		}
	}
	return s
}

// maxSegments bounds the segments WriteDocText lists per format.
const maxSegments = 40

// WriteDocText writes the byte maps: per format the total, the bytes by
// kind, the first segments, and the servers' figures beside.
func WriteDocText(w io.Writer, r *DocReport) {
	fmt.Fprintf(w, "%s: %s bytes as text\n", r.Document, db.Thousands(int64(r.BytesText)))
	for _, m := range r.Formats {
		fmt.Fprintf(w, "\n%s: %s bytes", m.Format, db.Thousands(int64(m.Total)))
		for _, s := range r.Servers {
			if s.Format == m.Format {
				verdict := "equal"
				if s.Bytes != int64(m.Total) {
					verdict = "DIFFERENT"
				}
				fmt.Fprintf(w, " (%s says %s: %s)", s.Target, db.Thousands(s.Bytes), verdict)
			}
		}
		fmt.Fprintln(w)
		byKind := map[string][2]int{}
		var kinds []string
		for _, s := range m.Segments {
			k := byKind[s.Kind]
			if k[1] == 0 {
				kinds = append(kinds, s.Kind)
			}
			byKind[s.Kind] = [2]int{k[0] + s.Bytes, k[1] + 1}
		}
		for _, k := range kinds {
			n := byKind[k][1]
			fmt.Fprintf(w, "  %-20s %9s bytes in %s %s\n", k, db.Thousands(int64(byKind[k][0])), db.Thousands(int64(n)), plural(n, "segment"))
		}
		fmt.Fprintf(w, "  %8s %8s  %-20s %-24s %s\n", "offset", "bytes", "what", "path", "")
		for i, s := range m.Segments {
			if i == maxSegments {
				fmt.Fprintf(w, "  … %s more (--format json lists them all)\n", db.Thousands(int64(len(m.Segments)-i)))
				break
			}
			fmt.Fprintf(w, "  %8d %8d  %-20s %-24s %s\n", s.Offset, s.Bytes, s.Kind, s.Path, s.Note)
		}
	}
}

// Pick returns the documents of docs with just the one named by n: the
// line number of a file's document, the key number of a generated one.
func (d *Docs) Pick(n int) (*Docs, error) {
	for i := range d.Data {
		if d.Lines != nil && d.Lines[i] == n || d.Lines == nil && i == n {
			one := &Docs{Source: d.Source, Data: d.Data[i : i+1], FirstKey: d.FirstKey + i}
			if d.Lines != nil {
				one.Lines = d.Lines[i : i+1]
			}
			return one, nil
		}
	}
	if d.Lines != nil {
		return nil, &BadInput{Err: fmt.Errorf("--doc %d: %s has no document on line %d", n, d.Source, n)}
	}
	return nil, &BadInput{Err: fmt.Errorf("--doc %d: want a key number from 0 to %d (recordcount=%d)", n, len(d.Data)-1, len(d.Data))}
}

// plural is word, with an s unless n is 1.
func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}
