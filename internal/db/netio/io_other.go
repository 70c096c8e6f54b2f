//go:build !linux

package netio

import (
	"errors"
	"net"
	"runtime"
)

// rawAvailable says that this system has PollerConn and BlockingConn: they
// are Linux's.
const rawAvailable = false

// errNotLinux is why a connection cannot be converted here.
var errNotLinux = errors.New("raw socket I/O needs Linux, not " + runtime.GOOS)

// BlockingConn is Linux's (see blocking_linux.go); never made here.
type BlockingConn struct{ net.Conn }

// PollerConn is Linux's (see poller.go); never made here.
type PollerConn struct{ net.Conn }

// NewBlocking fails: blocking I/O needs Linux.
func NewBlocking(net.Conn) (*BlockingConn, error) { return nil, errNotLinux }

// NewPoller fails: raw I/O needs Linux.
func NewPoller(net.Conn) (*PollerConn, error) { return nil, errNotLinux }
