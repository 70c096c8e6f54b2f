package db

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Mark is what docbench records on every table (collection) it creates, so
// that it drops only its own: which command created it, when, and the
// parameters of the load. PostgreSQL and MariaDB keep it as the table's
// comment, SQLite in a table docbench_tables, MongoDB in a collection
// docbench_collections.
type Mark struct {
	// By is the command that created the table: "docbench load",
	// "docbench study NAME".
	By      string    `json:"by"`
	Created time.Time `json:"created"`
	// Records is the number of records the load was to insert.
	Records int64 `json:"records,omitempty"`
	// Properties are the load's properties that shape its data.
	Properties map[string]string `json:"properties,omitempty"`
	// Load is the state of the load that created the table: LoadRunning
	// from its start, then LoadComplete or LoadStopped. Empty (a mark of an
	// older docbench, a sharded load's table): not known, taken as complete.
	Load string `json:"load,omitempty"`
	// Loaded is the number of records the load stored, recorded at its end.
	Loaded int64 `json:"loaded,omitempty"`
}

// The states of a load a mark records (Mark.Load).
const (
	LoadRunning  = "running"
	LoadComplete = "complete"
	LoadStopped  = "stopped"
)

// Unfinished says, in one line, why the table's data is not the whole
// load; "" when the load completed (or the mark does not say).
func (m Mark) Unfinished() string {
	switch m.Load {
	case LoadStopped:
		return fmt.Sprintf("the load stopped at %s of %s records", Thousands(m.Loaded), Thousands(m.Records))
	case LoadRunning:
		return fmt.Sprintf("the load of %s records begun %s never recorded its end (it is still running, or was killed)",
			Thousands(m.Records), m.Created.UTC().Format("2006-01-02 15:04 MST"))
	case LoadComplete:
		if m.Loaded < m.Records {
			return fmt.Sprintf("the load stored %s of %s records (the others failed)", Thousands(m.Loaded), Thousands(m.Records))
		}
	}
	return ""
}

// markPrefix begins every mark's text: what makes a comment docbench's.
const markPrefix = "created by docbench: "

// maxMark bounds a mark's text: MariaDB's table comments hold 2,048 bytes.
const maxMark = 2000

// Text is the mark as stored: a line a person reads, then the JSON.
func (m Mark) Text() string {
	if m.By == "" {
		m.By = "docbench"
	}
	if m.Created.IsZero() {
		m.Created = time.Now()
	}
	m.Created = m.Created.UTC().Truncate(time.Second)
	b, _ := json.Marshal(m)
	if len(b)+len(markPrefix) > maxMark {
		m.Properties = nil
		b, _ = json.Marshal(m)
	}
	return markPrefix + string(b)
}

// ParseMark reads a mark's text; ok is false for any other text (a comment
// of the user's, none at all).
func ParseMark(text string) (m Mark, ok bool) {
	rest, found := strings.CutPrefix(text, markPrefix)
	if !found || json.Unmarshal([]byte(rest), &m) != nil || !strings.HasPrefix(m.By, "docbench") {
		return Mark{}, false
	}
	return m, true
}

// Describe says what the mark records, e.g. "9,000 records loaded
// 2026-11-25 06:30 UTC by docbench load".
func (m Mark) Describe() string {
	if m.Created.IsZero() {
		return "created by " + m.By
	}
	when := m.Created.UTC().Format("2006-01-02 15:04 MST")
	switch m.Load {
	case LoadStopped:
		return fmt.Sprintf("%s of %s records loaded %s by %s (the load stopped)", Thousands(m.Loaded), Thousands(m.Records), when, m.By)
	case LoadRunning:
		return fmt.Sprintf("a load of %s records begun %s by %s (its end not recorded)", Thousands(m.Records), when, m.By)
	}
	if m.Records > 0 {
		return fmt.Sprintf("%s records loaded %s by %s", Thousands(m.Records), when, m.By)
	}
	return fmt.Sprintf("created %s by %s", when, m.By)
}

// Replacing is the line a backend logs when it drops a table of docbench's
// to create it again.
func Replacing(table string, m Mark) string {
	return fmt.Sprintf("replacing %s: %s", table, m.Describe())
}

// Claim decides what Setup does with its table, given whether it exists
// and carries docbench's mark: a table of anyone else's is *ErrNotOurs;
// with recreate, one of docbench's is to be dropped (logged as Replacing).
// create says the table is to be created, and marked.
func Claim(cfg OpenRequest, name string, m Mark, exists, ours, recreate bool) (drop, create bool, err error) {
	switch {
	case !exists:
		return false, true, nil
	case !ours:
		return false, false, &ErrNotOurs{Table: name}
	case !recreate:
		return false, false, nil
	}
	cfg.Logf("%s", Replacing(name, m))
	return true, true, nil
}

// Thousands formats n with commas: 9000 → "9,000".
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Managed is the mark of an unmarked table on a server docbench manages
// (postgres:embedded, mariadb:local): everything there is docbench's, the
// tables of versions that did not mark them too.
var Managed = Mark{By: "docbench on the server it manages"}

// ErrNotOurs is returned by Setup and Drop for a table (collection) that
// exists and carries no mark of docbench's: docbench leaves it alone.
type ErrNotOurs struct {
	// Table names it as the user knows it (schema.table, database.collection).
	Table string
}

func (e *ErrNotOurs) Error() string {
	return e.Table + " exists and was not created by docbench; choose another table (-p table=NAME) or drop it yourself"
}

// BadTarget is a target that cannot be what it names, whatever the server
// does (a database file in a directory that does not exist): the user's
// mistake to correct, not a failure of the run.
type BadTarget struct{ Err error }

func (e *BadTarget) Error() string { return e.Err.Error() }
func (e *BadTarget) Unwrap() error { return e.Err }

// TableOwner is a Store that tells and drops the tables docbench created
// (a study checks its tables before it starts, and drops them when done).
type TableOwner interface {
	// Owns returns nil when table does not exist or is docbench's, and
	// *ErrNotOurs otherwise.
	Owns(ctx context.Context, table string) error
	// Drop drops table when it is docbench's. A table that does not exist
	// is no error; one that docbench did not create is *ErrNotOurs and stays.
	Drop(ctx context.Context, table string) error
}

// Remarker is a Store that reads and rewrites the mark of a table it
// created: a load records its end there, and a run reads it.
type Remarker interface {
	// ReadMark returns the mark of table; ok is false when the table does
	// not exist or carries no mark of docbench's.
	ReadMark(ctx context.Context, table string) (m Mark, ok bool, err error)
	// Remark replaces the mark of a table of docbench's.
	Remark(ctx context.Context, table string, m Mark) error
}
