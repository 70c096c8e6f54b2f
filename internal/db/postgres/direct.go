package postgres

import (
	"bytes"
	"context"
	"net"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"
)

// direct runs a session's prepared statements by writing their messages
// and reading the replies itself, on pgconn's protocol connection, instead
// of through pgconn's Exec calls. Each of those arms and stops a 15 ms
// timer around its write, pgconn's guard against a write that blocks while
// the server's replies fill the socket, which cannot happen to one
// statement: the server reads all of it before it answers. Arming a timer
// that is the earliest of its P wakes an idle thread to watch it
// (runtime.wakeNetPoller): one futex wake-up and two context switches for
// most point reads in the network poller. The messages are reused, and no
// command tag is made: nothing is allocated per statement.
type direct struct {
	bind pgproto3.Bind
	exec pgproto3.Execute
	sync pgproto3.Sync
}

// run runs the prepared statement stmt with the text parameters s.params
// (nil is SQL NULL) under ctx, watched by s.watch. It appends the first
// column of the first row the statement returns, if any, to dst, and
// returns the rows its command tag counts (returned by a SELECT, written by
// an INSERT, UPDATE or DELETE). A failed read or write closes the
// connection, as pgconn's own statements do.
func (s *session) run(ctx context.Context, stmt string, dst []byte) (_ []byte, rows int64, err error) {
	pctx, err := s.watch.Begin(ctx)
	if err != nil {
		return dst, 0, err
	}
	dst, rows, err = s.direct.run(pctx, s.pg, stmt, s.params, dst)
	return dst, rows, s.watch.End(ctx, err)
}

func (w *direct) run(ctx context.Context, pg *pgconn.PgConn, stmt string, params [][]byte, dst []byte) ([]byte, int64, error) {
	if pg.IsClosed() {
		return dst, 0, net.ErrClosed
	}
	w.bind.PreparedStatement, w.bind.Parameters = stmt, params
	f := pg.Frontend()
	f.SendBind(&w.bind)
	f.SendExecute(&w.exec)
	f.SendSync(&w.sync)
	w.bind.Parameters = nil
	if err := f.Flush(); err != nil {
		pg.Conn().Close()
		return dst, 0, err
	}
	var (
		rows    int64
		first   = true
		stmtErr error
	)
	for {
		msg, err := pg.ReceiveMessage(ctx)
		if err != nil {
			pg.Conn().Close()
			return dst, rows, err
		}
		switch m := msg.(type) {
		case *pgproto3.DataRow:
			if first && len(m.Values) > 0 {
				dst = append(dst, m.Values[0]...)
				first = false
			}
		case *pgproto3.CommandComplete:
			rows = tagRows(m.CommandTag)
		case *pgproto3.ErrorResponse:
			if stmtErr == nil {
				stmtErr = pgconn.ErrorResponseToPgError(m)
			}
		case *pgproto3.ReadyForQuery:
			return dst, rows, stmtErr
		}
	}
}

// tagRows is the count of rows at the end of a command tag ("SELECT 1",
// "INSERT 0 1", "UPDATE 0"), as pgconn.CommandTag.RowsAffected reads it.
func tagRows(tag []byte) int64 {
	var n int64
	for _, c := range tag[bytes.LastIndexByte(tag, ' ')+1:] {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
	}
	return n
}
