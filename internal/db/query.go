package db

import (
	"context"
	"fmt"
)

// QueryKind is a kind of secondary query (querykind=…).
type QueryKind uint8

// The secondary query kinds. Their report names are QUERY-FIELD etc.
const (
	// QueryField: documents whose Path equals Value.
	QueryField QueryKind = iota
	// QueryContains: documents whose value at Path (the whole document when
	// Path is "") contains the JSON fragment Value, in PostgreSQL's @> sense:
	// an object contains the members given, an array contains elements that
	// contain the ones given. Typical: Path "tags", Value [{"term":"x"}];
	// or Path "", Value {"address":{"city":"x"}}. (PostgreSQL @>, MongoDB
	// $elemMatch / dotted equality, MySQL JSON_CONTAINS.)
	QueryContains
	// QueryArray: documents whose array at Path has an element equal to the
	// scalar Value (MEMBER OF, {path: value}, @> '[v]').
	QueryArray
	// QueryRange: documents with Path >= Value, ordered by Path (then key),
	// Limit/Offset: one page.
	QueryRange
	// QueryAggregate: group all documents by Path and compute Func (avg,
	// sum, count) of AggPath per group; the result count is the groups.
	QueryAggregate
	// QueryDescendant: documents with a member named as Path's last segment,
	// at any depth, equal to the scalar Value: the seeds' "key at any depth"
	// (PostgreSQL jsonpath '$.**.k ? (@ == v)', jsquery '*.k = v',
	// JSON_EXISTS; MySQL '$**.k'; SQLite json_tree). MongoDB has no such
	// query and says so.
	QueryDescendant
	// NumQueryKinds counts the kinds.
	NumQueryKinds
)

var queryNames = [NumQueryKinds]string{"field", "contains", "array", "range", "aggregate", "descendant"}

// String returns the property value naming the kind (querykind=field, …).
func (k QueryKind) String() string {
	if k < NumQueryKinds {
		return queryNames[k]
	}
	return fmt.Sprintf("QueryKind(%d)", int(k))
}

// ParseQueryKind reads a querykind property value.
func ParseQueryKind(s string) (QueryKind, bool) {
	for i, n := range queryNames {
		if n == s {
			return QueryKind(i), true
		}
	}
	return 0, false
}

// Query is one secondary query. The runner reuses it: adapters must not
// keep it after the call.
type Query struct {
	Kind    QueryKind
	Path    string   // dotted path the predicate (or group-by) is on; descendant: its last segment is the key
	Value   []byte   // JSON: the value, element, fragment or lower bound
	Limit   int      // the most documents returned (0: every match); aggregates return every group
	Offset  int      // documents skipped
	AggPath string   // aggregate: the path averaged/summed
	Func    string   // aggregate: avg, sum or count
	Fields  []string // documents returned: only these paths (nil = whole)
	// Keys, when not nil, receives the key of each document returned (not
	// of groups): for conformance tests; runs leave it nil.
	Keys *[]string
}

// Querier is implemented by sessions that run secondary queries. Query
// returns how many documents (or groups) the query produced.
type Querier interface {
	Query(ctx context.Context, q *Query) (int, error)
}

// ErrNotSupported marks an operation a backend cannot perform.
type ErrNotSupported struct {
	Backend, What string
}

func (e *ErrNotSupported) Error() string {
	return fmt.Sprintf("%s is not supported by %s", e.What, e.Backend)
}

// Statementer is implemented by sessions that run statements of the user's
// (statement.sql): each prepared once per session, with {table} replaced by
// the backend's table. Statement returns the rows the statement produced.
type Statementer interface {
	Statement(ctx context.Context, sql string, args []any) (int, error)
}

// Scripter is implemented by sessions that run a script of the user's
// (statement.file): its statements in one transaction, each prepared once
// per session with {table} replaced; a failing statement rolls the
// transaction back. Each statement takes its parameters from args, from
// the first on: as many as it has placeholders (on PostgreSQL up to its
// highest $N).
// PrepareScript prepares them before a run, so that a statement the
// server refuses, or one with more placeholders than nargs, stops the run
// before any work.
type Scripter interface {
	Script(ctx context.Context, stmts []string, args []any) error
	PrepareScript(ctx context.Context, stmts []string, nargs int) error
}

// SetupRunner is implemented by stores that run setup statements of the
// user's (statement.setup) once, with {table} replaced.
type SetupRunner interface {
	ExecSetup(ctx context.Context, sql string) error
}

// LastSegment is the member name a descendant query looks for at any depth:
// the last segment of path ("a.b.color" → "color").
func LastSegment(path string) string {
	segs := PathSegments(path)
	if len(segs) == 0 {
		return path
	}
	return segs[len(segs)-1]
}
