package sqldb

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/docbench/docbench/internal/db"
)

// StatementArgs returns the statement the session runs for a read, a scan
// or an update of paths in place (st.Update's Paths and Values), with its
// arguments bound as the session's operation binds them, for
// ExplainStatement. read and scan are the backend's statements reading
// whole documents.
func (s *Session) StatementArgs(ctx context.Context, st *db.Statement, read, scan *sql.Stmt) (*sql.Stmt, []any, error) {
	switch st.Kind {
	case db.StmtRead, db.StmtScan:
		stmt, args := read, []any{s.bind(st.Key)}
		if st.Kind == db.StmtScan {
			stmt, args = scan, append(args, st.Count)
		}
		if st.Fields != nil {
			p, err := s.Projection(ctx, st.Fields, st.Kind == db.StmtScan)
			if err != nil {
				return nil, nil, err
			}
			stmt = p.Stmt
		}
		return stmt, args, nil
	case db.StmtUpdate:
		u := st.Update
		if len(u.Paths) != len(u.Values) {
			return nil, nil, fmt.Errorf("%s explain: a %s update of %d paths with %d values", s.Dialect.Name, u.Mode, len(u.Paths), len(u.Values))
		}
		stmt, err := s.PartialStmt(ctx, len(u.Paths))
		if err != nil {
			return nil, nil, err
		}
		return stmt, s.appendSetArgs(nil, st.Key, u.Paths, u.Values), nil
	}
	return nil, nil, fmt.Errorf("%s explain: no statement of its own for a %s", s.Dialect.Name, st.Op())
}
