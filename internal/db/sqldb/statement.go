package sqldb

import (
	"context"
	"database/sql"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var _ db.Statementer = (*Session)(nil)

// Expand replaces {table} in a statement of the user's by table, the name
// statements use (Session.Table): the session's statements and the store's
// setup statements must expand it alike.
func Expand(text, table string) string { return strings.ReplaceAll(text, "{table}", table) }

// ExecSetup runs a setup statement of the user's (statement.setup) on d,
// {table} replaced by table (as the sessions name it).
func ExecSetup(ctx context.Context, d *sql.DB, table, text string) error {
	_, err := d.ExecContext(ctx, Expand(text, table))
	return err
}

// Statement runs a statement of the user's (statement.sql), {table}
// replaced by the session's table and prepared once, and returns the rows
// it produced.
func (s *Session) Statement(ctx context.Context, text string, args []any) (int, error) {
	st, ok := s.user[text]
	if !ok {
		var err error
		if st, err = s.Prepare(ctx, Expand(text, s.Table)); err != nil {
			return 0, err
		}
		if s.user == nil {
			s.user = map[string]*sql.Stmt{}
		}
		s.user[text] = st
	}
	return s.Count(ctx, st, 0, args...)
}
