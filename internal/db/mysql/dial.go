package mysql

import (
	"context"
	"errors"
	"net"
	"os"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/db/netio"
)

// dialSlot is the context key under which NewSession asks to be given the
// connection dialled for it.
type dialSlot struct{}

// rawDial dials as the driver does (within timeout, with TCP keep-alive)
// and returns a connection of the I/O mode that mode gives when it is
// called (netio.Convert), handed to the session that asked for it through
// the context.
func rawDial(timeout time.Duration, mode func() netio.Mode) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: timeout, KeepAlive: 15 * time.Second}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if c, err = netio.Convert(mode(), c); err != nil {
			return nil, err
		}
		if slot, ok := ctx.Value(dialSlot{}).(*net.Conn); ok {
			*slot = c
		}
		return c, nil
	}
}

// quietTimeouts is the driver's logger without the read and write errors of
// a passed deadline: a session's watch sets one to interrupt a statement
// whose context is cancelled, and the statement returns the context's
// error (the driver logs its I/O errors besides returning them).
type quietTimeouts struct{ next mysqldrv.Logger }

func (l quietTimeouts) Print(v ...any) {
	for _, x := range v {
		if err, ok := x.(error); ok && errors.Is(err, os.ErrDeadlineExceeded) {
			return
		}
	}
	l.next.Print(v...)
}
