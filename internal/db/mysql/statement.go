package mysql

import (
	"context"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqlstmt"
)

var (
	_ db.Statementer = (*session)(nil)
	_ db.SetupRunner = (*store)(nil)
)

// Statement runs a statement of the user's (statement.sql).
func (s *session) Statement(ctx context.Context, text string, args []any) (int, error) {
	return s.stmts.Run(ctx, s.conn, s.table, text, args)
}

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	_, err := s.sqlDB.ExecContext(ctx, sqlstmt.Expand(text, s.table))
	return err
}
