package storage

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/testutil"
)

// testCorpus is testdata/corpus.ndjson (numbers of every kind, unicode,
// escapes, repeated keys, nesting to depth 9, arrays past 32 entries,
// documents of 2 B to 20 kB) and a 1 MB document.
func testCorpus(t *testing.T) [][]byte {
	b, err := os.ReadFile("testdata/corpus.ndjson")
	if err != nil {
		t.Fatal(err)
	}
	docs := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	var big strings.Builder
	big.WriteString(`{"big":"`)
	for i := 0; big.Len() < 1<<20; i++ {
		h := sha256.Sum256([]byte{byte(i), byte(i >> 8), byte(i >> 16)})
		big.WriteString(hex.EncodeToString(h[:]))
	}
	big.WriteString(`"}`)
	return append(docs, []byte(big.String()))
}

// TestJSONBMap: docbench's jsonb encoder gives every document of the
// corpus PostgreSQL's own size (pg_column_size of the value made from the
// text, uncompressed), and its segments tile the value.
func TestJSONBMap(t *testing.T) {
	ctx := context.Background()
	conn := testutil.PostgresConn(t, testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")))
	for i, d := range testCorpus(t) {
		m, err := JSONBMap(d)
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var want int
		if err := conn.QueryRow(ctx, "SELECT pg_column_size($1::text::jsonb)", string(d)).Scan(&want); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		if m.Total != want {
			t.Errorf("document %d (%.60s): jsonb %d bytes, PostgreSQL says %d", i+1, d, m.Total, want)
		}
		tiles(t, m)
	}
}

// tiles checks that a map's segments follow each other up to its total.
func tiles(t *testing.T, m *ByteMap) {
	t.Helper()
	off := 0
	for _, s := range m.Segments {
		if s.Offset != off || s.Bytes <= 0 {
			t.Fatalf("%s: segment %+v at %d", m.Format, s, off)
		}
		off += s.Bytes
	}
	if off != m.Total {
		t.Errorf("%s: segments end at %d of %d", m.Format, off, m.Total)
	}
}

func TestNumericSize(t *testing.T) {
	for text, want := range map[string]int{"0": 6, "1": 8, "10000": 8, "9999": 8, "12345": 10, "1.5": 10, "0.0001": 8, "1e300": 10, "-12.500": 10} {
		if got, _ := numericSize(text); got != want {
			t.Errorf("numeric %s: %d bytes, want %d", text, got, want)
		}
	}
}

// TestSQLiteJSONBMap: docbench's SQLite JSONB encoder gives every document
// of the corpus SQLite's own size, length(jsonb(x)).
func TestSQLiteJSONBMap(t *testing.T) {
	conn, err := sql.Open("sqlite3", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for i, d := range testCorpus(t) {
		m, err := SQLiteJSONBMap(d)
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var want int
		if err := conn.QueryRow("SELECT length(jsonb(?))", string(d)).Scan(&want); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		if m.Total != want {
			t.Errorf("document %d (%.60s): SQLite JSONB %d bytes, SQLite says %d", i+1, d, m.Total, want)
		}
		tiles(t, m)
	}
}

// TestBSONMap: docbench's BSON encoder gives every object of the corpus
// the driver's own length (relaxed Extended JSON, marshalled).
func TestBSONMap(t *testing.T) {
	for i, d := range testCorpus(t) {
		if d[0] != '{' {
			continue
		}
		m, err := BSONMap(d)
		if err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		var doc bson.D
		if err := bson.UnmarshalExtJSON(d, false, &doc); err != nil {
			t.Fatalf("document %d: %v", i+1, err)
		}
		b, err := bson.Marshal(doc)
		if err != nil {
			t.Fatal(err)
		}
		if m.Total != len(b) {
			t.Errorf("document %d (%.60s): BSON %d bytes, the driver says %d", i+1, d, m.Total, len(b))
		}
		tiles(t, m)
	}
}

// TestEncodersMatchServers: loaded as docbench storage loads them, the
// corpus's objects have on each server, document by document, the size
// docbench's encoder gives (bytes_format).
func TestEncodersMatchServers(t *testing.T) {
	ctx := context.Background()
	docs := &Docs{Source: "corpus"}
	for _, d := range testCorpus(t) {
		if d[0] == '{' {
			docs.Data = append(docs.Data, d)
		}
	}
	for target, enc := range map[string]func([]byte) (*ByteMap, error){
		testutil.FreshDatabase(t, testutil.Postgres(t, "embedded")): JSONBMap,
		"sqlite:" + filepath.Join(t.TempDir(), "e.db"):              SQLiteJSONBMap,
	} {
		store, err := db.Open(ctx, db.OpenRequest{Target: target, Threads: loaders})
		if err != nil {
			t.Fatal(err)
		}
		defer store.Close()
		if err := store.Setup(ctx, db.Schema{Table: "enc", Mark: db.Mark{By: "docbench storage"}}, true); err != nil {
			t.Fatal(err)
		}
		if err := load(ctx, store, docs); err != nil {
			t.Fatal(err)
		}
		sizes, err := store.(db.StorageSizer).StorageSizes(ctx, "enc", true)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range docs.Data {
			m, err := enc(d)
			if err != nil {
				t.Fatal(err)
			}
			if int64(m.Total) != sizes.Formatted[i] {
				t.Errorf("%s: document %d (%.40s): %s %d bytes, the server %d", target[:6], i, d, m.Format, m.Total, sizes.Formatted[i])
			}
		}
		if err := store.(db.TableOwner).Drop(ctx, "enc"); err != nil {
			t.Error(err)
		}
	}
}
