package postgres

import (
	"context"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// direct runs a session's prepared statements by writing their messages
// and reading the replies itself, on pgconn's protocol connection, instead
// of through pgconn's Exec calls. Each of those arms and stops a 15 ms
// timer around its write (pgconn's guard against a write that blocks while
// the server's reply fills the socket, which a statement's few hundred
// bytes cannot): arming a timer that is the earliest of its P wakes an idle
// thread to watch it (runtime.wakeNetPoller), one futex wake-up and two
// context switches for most point reads in the network poller. The
// messages are reused: nothing is allocated per statement.
type direct struct {
	bind pgproto3.Bind
	exec pgproto3.Execute
	sync pgproto3.Sync
}

// readFirst runs the prepared statement d with the text
// parameters s.params (nil is SQL NULL) under ctx, and appends the first
// column of its first row to dst; found says whether there was a row. ctx
// is watched by s.watch. A failed read or write closes the connection, as
// pgconn's own statements do.
func (s *session) readFirst(ctx context.Context, d *pgconn.StatementDescription, dst []byte) (_ []byte, found bool, err error) {
	pctx, err := s.watch.Begin(ctx)
	if err != nil {
		return dst, false, err
	}
	dst, found, err = s.direct.readFirst(pctx, s.pg, d, s.params, dst)
	return dst, found, s.watch.End(ctx, err)
}

func (w *direct) readFirst(ctx context.Context, pg *pgconn.PgConn, d *pgconn.StatementDescription, params [][]byte, dst []byte) ([]byte, bool, error) {
	if pg.IsClosed() {
		return dst, false, net.ErrClosed
	}
	w.bind.PreparedStatement, w.bind.Parameters = d.Name, params
	f := pg.Frontend()
	f.SendBind(&w.bind)
	f.SendExecute(&w.exec)
	f.SendSync(&w.sync)
	w.bind.Parameters = nil
	if err := f.Flush(); err != nil {
		pg.Conn().Close()
		return dst, false, err
	}
	found := false
	var stmtErr error
	for {
		msg, err := pg.ReceiveMessage(ctx)
		if err != nil {
			pg.Conn().Close()
			return dst, found, err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if !found && len(m.Values) > 0 {
				dst = append(dst, m.Values[0]...)
				found = true
			}
		case *pgproto3.ErrorResponse:
			if stmtErr == nil {
				stmtErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return dst, found, stmtErr
		}
	}
}
