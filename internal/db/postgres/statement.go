package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var (
	_ db.Statementer = (*session)(nil)
	_ db.SetupRunner = (*store)(nil)
)

// Statement runs a statement of the user's (statement.sql), prepared once.
func (s *session) Statement(ctx context.Context, text string, args []any) (int, error) {
	if s.stmts == nil {
		s.stmts = map[string]string{}
	}
	name, ok := s.stmts[text]
	if !ok {
		name = fmt.Sprintf("user%d", len(s.stmts))
		q := strings.ReplaceAll(text, "{table}", s.st.table)
		if _, err := s.conn.Prepare(ctx, name, q); err != nil {
			return 0, fmt.Errorf("postgres prepare: %w (statement: %s)", err, q)
		}
		s.stmts[text] = name
	}
	rows, err := s.conn.Query(ctx, name, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	rows.Close()
	return n, rows.Err()
}

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	_, err := s.admin.Exec(ctx, strings.ReplaceAll(text, "{table}", s.table))
	return err
}
