package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/docbench/docbench/internal/db"
)

var (
	_ db.Statementer = (*session)(nil)
	_ db.Scripter    = (*session)(nil)
	_ db.SetupRunner = (*store)(nil)
)

// userStmts are the statements of the user's a session prepared, by text.
type userStmts map[string]*pgconn.StatementDescription

// Statement runs a statement of the user's (statement.sql), prepared once.
func (s *session) Statement(ctx context.Context, text string, args []any) (int, error) {
	sd, err := s.prepareUser(ctx, text)
	if err != nil {
		return 0, err
	}
	return s.runUser(ctx, sd.Name, args)
}

// prepareUser prepares a statement of the user's once per session.
func (s *session) prepareUser(ctx context.Context, text string) (*pgconn.StatementDescription, error) {
	if sd, ok := s.stmts[text]; ok {
		return sd, nil
	}
	if s.stmts == nil {
		s.stmts = userStmts{}
	}
	name := fmt.Sprintf("user%d", len(s.stmts))
	q := strings.ReplaceAll(text, "{table}", s.st.table)
	sd, err := s.conn.Prepare(ctx, name, q)
	if err != nil {
		return nil, fmt.Errorf("postgres prepare: %w (statement: %s)", err, q)
	}
	s.stmts[text] = sd
	return sd, nil
}

func (s *session) runUser(ctx context.Context, name string, args []any) (int, error) {
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

// Script runs a script of the user's (statement.file) in one transaction:
// BEGIN, its statements, COMMIT; ROLLBACK when one fails. A script of one
// statement runs alone, a transaction by itself.
func (s *session) Script(ctx context.Context, stmts []string, args []any) error {
	if len(stmts) > 1 {
		if _, err := s.conn.Exec(ctx, "BEGIN"); err != nil {
			return err
		}
	}
	for _, text := range stmts {
		sd, err := s.prepareScript(ctx, text, len(args))
		if err == nil {
			_, err = s.runUser(ctx, sd.Name, args[:len(sd.ParamOIDs)])
		}
		if err != nil {
			if len(stmts) > 1 && !s.conn.IsClosed() {
				_, _ = s.conn.Exec(context.WithoutCancel(ctx), "ROLLBACK")
			}
			return err
		}
	}
	if len(stmts) > 1 {
		_, err := s.conn.Exec(ctx, "COMMIT")
		return err
	}
	return nil
}

// PrepareScript prepares a script's statements (db.Scripter).
func (s *session) PrepareScript(ctx context.Context, stmts []string, nargs int) error {
	for _, text := range stmts {
		if _, err := s.prepareScript(ctx, text, nargs); err != nil {
			return err
		}
	}
	return nil
}

// prepareScript prepares a statement of a script, which takes the first
// of nargs parameters up to its highest $N.
func (s *session) prepareScript(ctx context.Context, text string, nargs int) (*pgconn.StatementDescription, error) {
	sd, err := s.prepareUser(ctx, text)
	if err != nil {
		return nil, err
	}
	if n := len(sd.ParamOIDs); n > nargs {
		return nil, fmt.Errorf("statement takes %d parameters, statement.params gives %d (statement: %s)", n, nargs, text)
	}
	return sd, nil
}

// ExecSetup runs a setup statement of the user's (statement.setup).
func (s *store) ExecSetup(ctx context.Context, text string) error {
	_, err := s.admin.Exec(ctx, strings.ReplaceAll(text, "{table}", s.table))
	return err
}
