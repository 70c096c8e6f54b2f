// Package sqlstmt runs statements of the user's on database/sql
// connections (SQLite, MySQL): prepared once per session, rows counted.
package sqlstmt

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Cache holds one session's prepared user statements.
type Cache struct {
	conn  *sql.Conn
	table string // what {table} becomes
	stmts map[string]*sql.Stmt
}

// New returns the statement cache of a session's connection.
func New(conn *sql.Conn, table string) *Cache {
	return &Cache{conn: conn, table: table, stmts: map[string]*sql.Stmt{}}
}

// Expand replaces {table} in a statement of the user's.
func Expand(text, table string) string { return strings.ReplaceAll(text, "{table}", table) }

// Run executes text with args and returns the rows it produced, or the
// rows it affected when it produced none.
func (c *Cache) Run(ctx context.Context, text string, args []any) (int, error) {
	st, ok := c.stmts[text]
	if !ok {
		var err error
		q := Expand(text, c.table)
		if st, err = c.conn.PrepareContext(ctx, q); err != nil {
			return 0, fmt.Errorf("prepare: %w (statement: %s)", err, q)
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
