// Package sqlstmt runs statements of the user's on database/sql
// connections (SQLite, MySQL): prepared once per session, rows counted.
package sqlstmt

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Cache holds one session's prepared user statements; the zero value is
// ready to use.
type Cache struct {
	stmts map[string]*sql.Stmt
}

// Expand replaces {table} in a statement of the user's.
func Expand(text, table string) string { return strings.ReplaceAll(text, "{table}", table) }

// Run executes text on conn ({table} replaced by table), prepared once,
// and returns the rows it produced.
func (c *Cache) Run(ctx context.Context, conn *sql.Conn, table, text string, args []any) (int, error) {
	st, ok := c.stmts[text]
	if !ok {
		var err error
		q := Expand(text, table)
		if st, err = conn.PrepareContext(ctx, q); err != nil {
			return 0, fmt.Errorf("prepare: %w (statement: %s)", err, q)
		}
		if c.stmts == nil {
			c.stmts = map[string]*sql.Stmt{}
		}
		c.stmts[text] = st
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return 0, err
	}
	n := 0
	for rows.Next() {
		n++
	}
	if err := rows.Err(); err != nil {
		rows.Close()
		return n, err
	}
	return n, rows.Close()
}

// Close closes the prepared statements.
func (c *Cache) Close() error {
	var first error
	for _, st := range c.stmts {
		if err := st.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}
