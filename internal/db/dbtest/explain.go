package dbtest

import "github.com/docbench/docbench/internal/db"

// ExplainRequest is a request with a statement of every kind on key: a
// read of the whole document and one of field0, a scan of 10 documents, a
// partial update of field0, an insert of doc, and then ExplainQueries(q).
func ExplainRequest(key, doc []byte, q ...db.Query) *db.ExplainRequest {
	r := &db.ExplainRequest{Statements: []db.Statement{
		{Kind: db.StmtRead, Key: key},
		{Kind: db.StmtRead, Key: key, Fields: []string{"field0"}},
		{Kind: db.StmtScan, Key: key, Count: 10},
		{Kind: db.StmtUpdate, Key: key, Update: &db.Update{Mode: db.Partial, Paths: []string{"field0"}, Values: [][]byte{[]byte(`"new"`)}}},
		{Kind: db.StmtInsert, Key: key, Doc: doc},
	}}
	r.Statements = append(r.Statements, ExplainQueries(q...).Statements...)
	return r
}

// ExplainQueries is a request with a statement for each query.
func ExplainQueries(q ...db.Query) *db.ExplainRequest {
	r := &db.ExplainRequest{}
	for i := range q {
		r.Statements = append(r.Statements, db.Statement{Kind: db.StmtQuery, Query: &q[i]})
	}
	return r
}
