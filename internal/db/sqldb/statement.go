package sqldb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var (
	_ db.Statementer = (*Session)(nil)
	_ db.Scripter    = (*Session)(nil)
)

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
	st, err := s.userStmt(ctx, text)
	if err != nil {
		return 0, err
	}
	return s.Count(ctx, st, 0, args...)
}

func (s *Session) userStmt(ctx context.Context, text string) (*sql.Stmt, error) {
	if st, ok := s.user[text]; ok {
		return st, nil
	}
	st, err := s.Prepare(ctx, Expand(text, s.Table))
	if err != nil {
		return nil, err
	}
	if s.user == nil {
		s.user = map[string]*sql.Stmt{}
	}
	s.user[text] = st
	return st, nil
}

// Script runs a script of the user's (statement.file) in one transaction
// opened by BEGIN (ScriptIn).
func (s *Session) Script(ctx context.Context, stmts []string, args []any) error {
	return s.ScriptIn(ctx, "BEGIN", stmts, args)
}

// ScriptIn runs a script of the user's: begin (the backend's BEGIN), its
// statements, COMMIT; ROLLBACK when one fails. Each statement takes as
// many of args as the driver says it has placeholders. A script of one
// statement runs alone, a transaction by itself.
func (s *Session) ScriptIn(ctx context.Context, begin string, stmts []string, args []any) error {
	if len(stmts) > 1 {
		if err := s.execText(ctx, begin); err != nil {
			return err
		}
	}
	for _, text := range stmts {
		if err := s.scriptStatement(ctx, text, args); err != nil {
			if len(stmts) > 1 {
				_ = s.execText(context.WithoutCancel(ctx), "ROLLBACK")
			}
			return err
		}
	}
	if len(stmts) > 1 {
		return s.execText(ctx, "COMMIT")
	}
	return nil
}

func (s *Session) scriptStatement(ctx context.Context, text string, args []any) error {
	st, n, err := s.prepareScript(ctx, text, len(args))
	if err != nil {
		return err
	}
	if n >= 0 {
		args = args[:n]
	}
	_, err = s.Count(ctx, st, 0, args...)
	return err
}

// PrepareScript prepares a script's statements (db.Scripter).
func (s *Session) PrepareScript(ctx context.Context, stmts []string, nargs int) error {
	for _, text := range stmts {
		if _, _, err := s.prepareScript(ctx, text, nargs); err != nil {
			return err
		}
	}
	return nil
}

// prepareScript prepares a statement of a script and returns how many
// of the nargs parameters it takes (-1: all, the driver cannot tell).
func (s *Session) prepareScript(ctx context.Context, text string, nargs int) (*sql.Stmt, int, error) {
	st, err := s.userStmt(ctx, text)
	if err != nil {
		return nil, 0, err
	}
	n, ok := s.params[st]
	if !ok {
		if n, err = s.placeholders(text); err != nil {
			return nil, 0, err
		}
		if s.params == nil {
			s.params = map[*sql.Stmt]int{}
		}
		s.params[st] = n
	}
	if n > nargs {
		return nil, 0, fmt.Errorf("statement takes %d parameters, statement.params gives %d (statement: %s)", n, nargs, text)
	}
	return st, n, nil
}

// placeholders asks the driver how many parameters a statement of the
// user's takes (-1: it cannot tell).
func (s *Session) placeholders(text string) (int, error) {
	n := -1
	err := s.Conn.Raw(func(dc any) error {
		st, err := dc.(driver.Conn).Prepare(Expand(text, s.Table))
		if err != nil {
			return err
		}
		n = st.NumInput()
		return st.Close()
	})
	if err != nil {
		return 0, fmt.Errorf("%s prepare: %w (statement: %s)", s.Dialect.Name, err, text)
	}
	return n, nil
}

// execText runs a statement without parameters (BEGIN, COMMIT, ROLLBACK)
// as text.
func (s *Session) execText(ctx context.Context, q string) error {
	qctx, err := s.Watch.Begin(ctx)
	if err != nil {
		return err
	}
	_, err = s.Conn.ExecContext(qctx, q)
	return s.Watch.End(ctx, err)
}
