package db

import "context"

// StorageSizer is a Store that tells how the documents of a table it
// created are stored, from the server's own figures (docbench storage).
type StorageSizer interface {
	// StorageChoices lists the ways of storing the documents the server
	// offers beside its default (PostgreSQL: STORAGE MAIN and EXTERNAL,
	// each compression method), those it lacks with Missing set.
	StorageChoices(ctx context.Context) ([]StorageChoice, error)
	// UseStorageChoice makes the tables Setup creates next store their
	// documents as c says; the zero StorageChoice is the default.
	UseStorageChoice(c StorageChoice) error
	// StorageSizes measures table, created by Setup and loaded: one figure
	// per document, in key order. Without formatted it may leave out
	// StorageSizes.Formatted, the same under every choice.
	StorageSizes(ctx context.Context, table string, formatted bool) (*StorageSizes, error)
}

// StorageChoice is one way of storing the documents.
type StorageChoice struct {
	// Name says it as the server's SQL does: "STORAGE MAIN", "COMPRESSION lz4".
	Name string `json:"name"`
	// Props are the properties choosing it (pg.storage=main).
	Props map[string]string `json:"properties,omitempty"`
	// Missing says why the server cannot ("lz4: not built into this server").
	Missing string `json:"missing,omitempty"`
}

// Where a document's value is stored.
const (
	InLine           = 'i' // in the row, uncompressed
	CompressedInLine = 'c' // in the row, compressed
	OutOfLine        = 'o' // in the TOAST relation (compressed or not)
	Compressed       = 'C' // compressed, in the row or out of line: the server cannot tell which
	Uncompressed     = 'U' // not compressed, in the row or out of line: the server cannot tell which
	PlaceUnknown     = '?' // the server cannot tell
)

// StorageSizes are a table's documents as the server stores them.
type StorageSizes struct {
	// Format names the stored format: "jsonb", "SQLite JSONB", "BSON".
	Format string
	// Formatted is each document's size in that format before compression.
	Formatted []int64
	// Stored is each document's size as stored (compressed, if it was).
	Stored []int64
	// Place is where each document's value is stored (InLine, …); nil when
	// the server has no such distinction.
	Place []byte
	// Chunks is, for each value stored out of line, its number of TOAST
	// chunks (in key order when the server maps documents to chunks, else
	// in the TOAST relation's order: then its length is the number of
	// documents out of line); nil when there is no such thing.
	Chunks []int64
	// Table, Toast and Indexes are the relations' sizes in bytes.
	Table, Toast, Indexes Figure
	// File is the whole database file's size, when the server keeps the
	// table in a file of its own making (SQLite); Missing otherwise.
	File Figure
	// Queries are the statements the figures came from, by figure.
	Queries map[string]string
	// Notes say what the server could not tell, and why.
	Notes []string
}

// ReadCoster is a Store that tells what reading one field of one document
// costs the server (docbench storage).
type ReadCoster interface {
	// ReadCost is the buffers (pages) the server touched executing a read
	// of field of the document at key in table, and the statement it ran.
	ReadCost(ctx context.Context, table string, key []byte, field string) (buffers Figure, query string, err error)
}
