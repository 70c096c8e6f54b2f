package mysql

import (
	"context"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqldb"
)

var (
	_ db.SetupRunner = (*store)(nil)
)

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	_, err := s.sqlDB.ExecContext(ctx, sqldb.Expand(text, s.table))
	return err
}
