package storage

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all"
	"github.com/docbench/docbench/internal/testutil"
)

func TestMain(m *testing.M) { testutil.Main(m) }

func TestReadNDJSON(t *testing.T) {
	d, err := ReadNDJSON(strings.NewReader("{\"a\":1}\n\n  {\"b\":[1,2]}  \n"), "x.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Data) != 2 || d.Lines[1] != 3 || string(d.Data[1]) != `{"b":[1,2]}` || d.Label(1) != "line 3" {
		t.Errorf("read %q lines %v", d.Data, d.Lines)
	}
	if one, err := d.Pick(3); err != nil || one.Label(0) != "line 3" {
		t.Errorf("--doc 3: %v, %v", one, err)
	}
	gen := &Docs{Data: d.Data}
	if one, err := gen.Pick(1); err != nil || one.Label(0) != "key 1" || string(one.Data[0]) != `{"b":[1,2]}` {
		t.Errorf("--doc 1 of generated documents: %v, %v", one, err)
	}
	for in, want := range map[string]string{
		"{\"a\":1}\n{\"a\":\n":  "x.ndjson:2: not a JSON object",
		"{\"a\":1}\n[1,2]\n":    "x.ndjson:2: not a JSON object",
		"\n\n{\"a\":1}}\n":      "x.ndjson:3: not a JSON object",
		"\n \n":                 "x.ndjson: no documents",
		"{\"a\":1}\n\"text\"\n": "x.ndjson:2:",
	} {
		_, err := ReadNDJSON(strings.NewReader(in), "x.ndjson")
		var bad *BadInput
		if !errors.As(err, &bad) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want BadInput %q", in, err, want)
		}
	}
}

// corpus: small documents, one of 6 kB that compresses well and one of
// 40 kB that does not compress (hex of hashes).
func corpus() *Docs {
	d := &Docs{Source: "test", Lines: []int{1, 2, 3, 4}}
	var random strings.Builder
	for i := 0; random.Len() < 40_000; i++ {
		h := sha256.Sum256([]byte(fmt.Sprint(i)))
		random.WriteString(hex.EncodeToString(h[:]))
	}
	d.Data = [][]byte{
		[]byte(`{"a":1}`),
		[]byte(`{"a":"aa","b":[1,2.5,-3e10,true,null],"c":{"d":"é"}}`),
		[]byte(`{"text":"` + strings.Repeat("compressible ", 500) + `"}`),
		[]byte(`{"blob":"` + random.String() + `"}`),
	}
	return d
}

// TestPostgres: the places and chunks of a corpus under each storage
// choice, the sizes equal to the server's own for each document, and the
// scratch table dropped, a table of the user's of its name untouched.
func TestPostgres(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	docs := corpus()
	res, err := Measure(ctx, Request{Target: url}, docs)
	if err != nil {
		t.Fatal(err)
	}
	conn := testutil.PostgresConn(t, url)
	for i, d := range docs.Data {
		var size int64
		if err := conn.QueryRow(ctx, "SELECT pg_column_size($1::text::jsonb)", string(d)).Scan(&size); err != nil {
			t.Fatal(err)
		}
		if i == 0 && res.BytesFormat.Count != 4 {
			t.Errorf("%d documents measured", res.BytesFormat.Count)
		}
		if i == 3 && float64(size) != res.BytesFormat.Max {
			t.Errorf("largest jsonb %v bytes, the server says %d", res.BytesFormat.Max, size)
		}
	}
	want := map[string][3]float64{ // in-line, compressed in-line, out of line, of 4
		"default":          {2, 1, 1},
		"STORAGE MAIN":     {2, 1, 1}, // 40 kB incompressible cannot stay in an 8 kB page
		"STORAGE EXTERNAL": {2, 0, 2},
	}
	all := append([]Figures{res.Figures}, res.Choices...)
	for _, f := range all {
		if f.Missing != "" {
			if f.Choice != "COMPRESSION lz4" || !strings.Contains(f.Missing, "not built into this server") {
				t.Errorf("%s: %s", f.Choice, f.Missing)
			}
			continue
		}
		s := f.ToastedShare
		got := [3]float64{*s.InLine * 4, *s.CompressedInLine * 4, *s.OutOfLine * 4}
		if w, ok := want[f.Choice]; !ok || got != w {
			t.Errorf("%s: in-line, compressed, out of line: %v, want %v", f.Choice, got, w)
		}
		c := f.ChunksPerDoc
		if c == nil || c.Count != int(want[f.Choice][2]) || c.Max < 20 {
			t.Errorf("%s: chunks %+v, want %v documents, the 40 kB one in 20 or more", f.Choice, c, want[f.Choice][2])
		}
		if f.Queries["chunks_per_doc"] == "" || f.PerDocument.Table == nil || f.PerDocument.Table.Value <= 0 {
			t.Errorf("%s: queries %v, per document %+v", f.Choice, f.Queries, f.PerDocument)
		}
	}
	if k := res.KeyReads; len(k) != 2 || k[1].Place != "out of line" || k[1].Document != "line 4" ||
		!k[0].Buffers.OK() || k[1].Buffers.Value < k[0].Buffers.Value+5 || !strings.Contains(k[1].Query, "EXPLAIN") {
		t.Errorf("key reads %+v: want the 40 kB document out of line, read through its TOAST pages (four chunks a page)", k)
	}
	if len(all) != 4 {
		t.Errorf("%d choices measured, want the default, MAIN, EXTERNAL and lz4", len(all))
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", "docbench."+Table()).Scan(&exists); err != nil || exists {
		t.Errorf("the scratch table stays (%v)", err)
	}
	if _, err := conn.Exec(ctx, "CREATE TABLE docbench."+pgx.Identifier{Table()}.Sanitize()+" (id int); INSERT INTO docbench."+Table()+" VALUES (7)"); err != nil {
		t.Fatal(err)
	}
	_, err = Measure(ctx, Request{Target: url}, docs)
	var no *db.ErrNotOurs
	var n int
	if !errors.As(err, &no) || conn.QueryRow(ctx, "SELECT id FROM docbench."+Table()).Scan(&n) != nil || n != 7 {
		t.Errorf("a table of the user's named as the scratch table: %v, its row %d", err, n)
	}
}

// TestPostgresDocumentLayout: with the key inside the document the places
// are those of the key column's layout (the key adds a few bytes to each),
// each read found by the key's expression; the relational layout, where a
// document is not one value, is refused.
func TestPostgresDocumentLayout(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
	res, err := Measure(ctx, Request{Target: url, Props: map[string]string{"layout": "document"}, DefaultOnly: true}, corpus())
	if err != nil {
		t.Fatal(err)
	}
	s := res.ToastedShare
	if got := [3]float64{*s.InLine * 4, *s.CompressedInLine * 4, *s.OutOfLine * 4}; got != [3]float64{2, 1, 1} {
		t.Errorf("in-line, compressed, out of line: %v, want [2 1 1]", got)
	}
	if k := res.KeyReads; len(k) != 2 || !strings.Contains(k[1].Query, "YCSB_KEY") || k[1].Buffers.Value < k[0].Buffers.Value+5 {
		t.Errorf("key reads %+v: want the out-of-line document read by YCSB_KEY, through its TOAST pages", k)
	}
	_, err = Measure(ctx, Request{Target: url, Props: map[string]string{"layout": "relational"}, DefaultOnly: true}, corpus())
	var ns *db.ErrNotSupported
	if !errors.As(err, &ns) {
		t.Errorf("layout=relational: %v, want not supported", err)
	}
}

// TestSQLite: the sizes are SQLite's own, the scratch table dropped.
func TestSQLite(t *testing.T) {
	ctx := context.Background()
	target := "sqlite:" + filepath.Join(t.TempDir(), "s.db")
	docs := corpus()
	res, err := Measure(ctx, Request{Target: target}, docs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "SQLite JSONB" || res.ToastedShare != nil || len(res.Choices) != 0 {
		t.Errorf("format %s, shares %v, choices %v", res.Format, res.ToastedShare, res.Choices)
	}
	if res.BytesFormat.Count != 4 || res.BytesStored.Max != res.BytesFormat.Max {
		t.Errorf("sizes %+v %+v", res.BytesFormat, res.BytesStored)
	}
	store, err := db.Open(ctx, db.OpenRequest{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.(db.TableOwner).Owns(ctx, Table()); err != nil {
		t.Error(err)
	}
	if sz, err := store.(db.StorageSizer).StorageSizes(ctx, Table(), true); err == nil {
		t.Errorf("the scratch table stays: %d documents", len(sz.Stored))
	}
}

// TestMariaDB: the sizes are MariaDB's own (its JSON is text), the table's
// from information_schema, the scratch table dropped.
func TestMariaDB(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMySQLDatabase(t, testutil.MariaDB(t))
	docs := corpus()
	res, err := Measure(ctx, Request{Target: url}, docs)
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "JSON text (LONGTEXT)" || res.BytesStored.Count != 4 || res.BytesStored.Max < 40_000 ||
		res.PerDocument.Table == nil || !res.PerDocument.Table.OK() || len(res.Choices) != 0 {
		t.Errorf("figures %+v, stored %+v, per document %+v", res.Figures.Format, res.BytesStored, res.PerDocument)
	}
	store, err := db.Open(ctx, db.OpenRequest{Target: url})
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if _, err := store.(db.StorageSizer).StorageSizes(ctx, Table(), true); err == nil {
		t.Error("the scratch table stays")
	}
}

// TestMongoDB: on the wire peer (no $bsonSize) the sizes are the lengths
// of the documents it returns: docbench's BSON encoder's size with the
// _id element the adapter adds (type, "_id\x00", string of the key).
func TestMongoDB(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshMongoDatabase(t, testutil.MongoDB(t))
	docs := corpus()
	res, err := Measure(ctx, Request{Target: url}, docs)
	if err != nil {
		t.Fatal(err)
	}
	want := 0.0
	for i, d := range docs.Data {
		m, err := BSONMap(d)
		if err != nil {
			t.Fatal(err)
		}
		want = max(want, float64(m.Total+1+4+4+len(Key(i))+1))
	}
	if res.Format != "BSON" || res.BytesStored.Count != 4 || res.BytesStored.Max != want {
		t.Errorf("format %s, stored %+v, want max %v", res.Format, res.BytesStored, want)
	}
}

// TestPostgres15: Debian's PostgreSQL 15 has lz4, measured by loading; it
// cannot tell in-line from out-of-line values per document (no
// pg_column_toast_chunk_id), so the shares are compressed and out of line.
func TestPostgres15(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "debian"))
	res, err := Measure(ctx, Request{Target: url}, corpus())
	if err != nil {
		t.Fatal(err)
	}
	var lz4 *Figures
	for i, c := range res.Choices {
		if c.Choice == "COMPRESSION lz4" {
			lz4 = &res.Choices[i]
		}
	}
	if lz4 == nil || lz4.Missing != "" || lz4.BytesStored == nil {
		t.Fatalf("lz4: %+v", lz4)
	}
	// pglz keeps the 40 kB of hex uncompressed (it saves under 25 %); lz4
	// takes any saving: 37.6 of 40 kB here.
	for _, c := range []struct {
		f                     *Figures
		compressed, outOfLine float64
	}{{&res.Figures, 1, 1}, {lz4, 2, 1}} {
		s := c.f.ToastedShare
		if s == nil || s.InLine != nil || s.Compressed == nil || s.OutOfLine == nil || *s.Compressed*4 != c.compressed || *s.OutOfLine*4 != c.outOfLine {
			t.Errorf("%s: shares %+v, want %v of 4 compressed (in-line or out of line), %v out of line", c.f.Choice, s, c.compressed, c.outOfLine)
		}
	}
	if lz4.BytesStored.Max >= res.BytesStored.Max {
		t.Errorf("lz4 stored the 40 kB of hex in %v bytes, pglz in %v", lz4.BytesStored.Max, res.BytesStored.Max)
	}
}

// TestPostgres13: a server without pg_column_compression gives the share
// out of line alone (from its TOAST relation), and says why; lz4 is
// missing with its reason.
func TestPostgres13(t *testing.T) {
	ctx := context.Background()
	url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded@13"))
	res, err := Measure(ctx, Request{Target: url}, corpus())
	if err != nil {
		t.Fatal(err)
	}
	s := res.ToastedShare
	if s == nil || s.InLine != nil || s.Compressed != nil || *s.OutOfLine*4 != 1 || len(res.Notes) == 0 {
		t.Errorf("shares %+v, notes %v", s, res.Notes)
	}
	if c := res.Choices[len(res.Choices)-1]; c.Missing != "lz4: column compression needs PostgreSQL 14" {
		t.Errorf("lz4 on 13: %+v", c)
	}
	var text strings.Builder
	if err := WriteText(&text, &Report{Source: "corpus", Documents: 4, Targets: []Target{*res}}); err != nil || !strings.Contains(text.String(), "stored: 25.0% out of line") {
		t.Errorf("%v:\n%s", err, text.String())
	}
}
