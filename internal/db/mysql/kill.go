package mysql

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"sync"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// killer stops statements on the server: KILL QUERY on a connection of its
// own, opened with the first session (prepare) and kept for the store's cancels.
type killer struct {
	mu   sync.Mutex
	conn *sql.Conn
}

// kill stops the statement running on the server connection id (from
// CONNECTION_ID()), if any: the statement fails with "query execution was
// interrupted" (SLEEP returns 1) and its connection stays usable.
func (k *killer) kill(ctx context.Context, sqlDB *sql.DB, id int64) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		c, err := sqlDB.Conn(ctx)
		if err != nil {
			return err
		}
		k.conn = c
	}
	_, err := k.conn.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10))
	if me := (*mysqldrv.MySQLError)(nil); err != nil && !errors.As(err, &me) {
		// Not the server's answer (the connection broke, or ctx ended
		// during the call): the next kill opens another connection.
		k.conn.Close()
		k.conn = nil
	}
	return err
}

// prepare opens the kill connection ahead of the first cancel, so that a
// cancel costs the server one round trip, not a connection's setup, within
// the grace a cancelled statement gives it (netio.CancelGrace); under load
// the setup alone could outlast it and the deadline break the session's
// connection. A failure is left to kill, which tries again.
func (k *killer) prepare(ctx context.Context, sqlDB *sql.DB) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		if c, err := sqlDB.Conn(ctx); err == nil {
			k.conn = c
		}
	}
}

// close closes the kill connection, if one was opened.
func (k *killer) close() error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.conn == nil {
		return nil
	}
	err := k.conn.Close()
	k.conn = nil
	return err
}
