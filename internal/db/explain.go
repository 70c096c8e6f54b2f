package db

import (
	"context"
	"strings"
)

// StatementKind is what a statement of a phase does.
type StatementKind uint8

// Kinds of statements.
const (
	StmtRead   StatementKind = iota // look Key up: the whole document, or Fields
	StmtScan                        // Count documents from Key on, in key order (Fields: a projection)
	StmtUpdate                      // apply Update to the document at Key
	StmtInsert                      // store Doc at Key
	StmtQuery                       // run Query
)

var stmtOps = [...]string{StmtRead: "READ", StmtScan: "SCAN", StmtUpdate: "UPDATE", StmtInsert: "INSERT"}

// Statement is one representative instance of a statement a phase runs,
// with the values a session binds to it.
type Statement struct {
	Kind   StatementKind
	Key    []byte   // read, scan (its first key), update, insert: a key the load phase stored
	Fields []string // read, scan: the projection (nil: the whole document)
	Count  int      // scan: how many documents
	Doc    []byte   // insert: a document of the plan's shape
	Update *Update  // update: one of the plan's mode
	Query  *Query   // query
	Name   string   // the report name, when not the kind's (a query mix's QUERY-NAME)
}

// Op is the name a statement's plan goes by in a result: the operation it
// serves, as the report names it (READ, SCAN, UPDATE, INSERT, QUERY-FIELD,
// …). The read and the update of a read-modify-write are a READ and an
// UPDATE.
func (s *Statement) Op() string {
	if s.Name != "" {
		return s.Name
	}
	if s.Kind == StmtQuery {
		return QueryOp(s.Query.Kind)
	}
	return stmtOps[s.Kind]
}

// QueryOp is the report name of a secondary query of kind k: QUERY-FIELD,
// QUERY-RANGE, …
func QueryOp(k QueryKind) string { return "QUERY-" + strings.ToUpper(k.String()) }

// ExplainRequest is the statements a phase runs, one representative
// instance of each shape, in the order their plans are reported.
type ExplainRequest struct {
	Statements []Statement
}

// Plan is the server's execution plan of one statement.
type Plan struct {
	Op        string `json:"op"`
	Statement string `json:"statement"`
	// Access summarises the plan: the scans and indexes used.
	Access string `json:"access"`
	// Flag is set when a key lookup or query uses no index.
	Flag string `json:"flag,omitempty"`
	// Plan is the plan as the server gave it (JSON or text).
	Plan string `json:"plan,omitempty"`
}

// StatementExplainer is implemented by sessions that show the server's
// plan of the statement they run for a Statement. Explain drives it.
type StatementExplainer interface {
	// ExplainStatement returns the plan of the statement the session runs
	// for st, bound to st's values: its Statement, Access, Flag and Plan
	// (Op is the caller's). A statement the server does not explain is a
	// plan whose Access says why ("not explained: …"); an error (the
	// statement could not be prepared) ends the explaining.
	ExplainStatement(ctx context.Context, st *Statement) (Plan, error)
}

// Explain opens a session of store and shows the server's plan of each
// statement of r, in order. On an error it returns the plans it has with
// the error. A store whose sessions do not explain gives no plans.
func Explain(ctx context.Context, store Store, r *ExplainRequest) ([]Plan, error) {
	sess, err := store.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ex, ok := sess.(StatementExplainer)
	if !ok {
		return nil, nil
	}
	var plans []Plan
	for i := range r.Statements {
		st := &r.Statements[i]
		p, err := ex.ExplainStatement(ctx, st)
		if err != nil {
			return plans, err
		}
		p.Op = st.Op()
		plans = append(plans, p)
	}
	return plans, nil
}
