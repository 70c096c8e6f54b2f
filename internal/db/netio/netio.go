// Package netio is what the network backends share below their drivers:
// the I/O mode of their connections (Mode: blocked in the kernel, waiting
// in Go's network poller with raw system calls, or Go's net package), and
// one context watch per session instead of the drivers' per statement
// (Watch).
package netio

import (
	"context"
	"fmt"
	"net"
	"os"
	"runtime"
	"strings"
)

// DialFunc is a driver's dial function.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Mode is how a session's connection waits for the server.
type Mode string

// The I/O modes, as the backends' io properties name them (pg.io, mysql.io).
const (
	// Auto is Blocking where it costs less client CPU (BlockingPays),
	// Poller otherwise; Net where neither is available (not Linux). It is
	// asked for: an unset io property is Poller (Default).
	Auto Mode = "auto"
	// Blocking: a BlockingConn, whose goroutine's thread waits in the
	// kernel (ppoll) for the server, as a C client's does (Linux).
	Blocking Mode = "blocking"
	// Poller: a PollerConn, raw system calls on the non-blocking socket,
	// waiting in Go's network poller (Linux).
	Poller Mode = "poller"
	// Net: the connection as the driver dials it, through Go's net package.
	Net Mode = "net"
)

// Modes lists the values of an io property.
var Modes = []string{string(Auto), string(Blocking), string(Poller), string(Net)}

// startProcs is GOMAXPROCS as the process started: the CPUs the Go runtime
// sees (affinity and cgroup limits included), or what the user set.
var startProcs = runtime.GOMAXPROCS(0)

// BlockingPays says whether workers blocking in the kernel (BlockingConn)
// cost less client CPU than workers waiting in the network poller: with up
// to two workers per CPU. With more, the poller's one epoll_wait hands over
// several replies at a time and runs them without a context switch each,
// and that costs less (docs/performance.md). When the user set GOMAXPROCS,
// which the runner then leaves as it is, only with fewer workers than Ps:
// a blocked worker holds its P. threads 0: unknown, one.
func BlockingPays(threads int) bool {
	if os.Getenv("GOMAXPROCS") != "" {
		return threads < startProcs
	}
	return threads <= 2*startProcs
}

// Resolve turns an io setting into the mode sessions use for a phase of
// threads workers: Auto becomes Blocking or Poller (Net where neither is
// available); the others stay as they are.
func Resolve(m Mode, threads int) Mode {
	if m != Auto {
		return m
	}
	switch {
	case !rawAvailable:
		return Net
	case BlockingPays(threads):
		return Blocking
	}
	return Poller
}

// Setting reads a backend's io property, prefix+".io" (pg.io, mysql.io),
// or the older properties it replaced, which remain accepted with the
// meaning they had: prefix+".blockingio" true is Blocking, false Poller,
// auto Auto; prefix+".rawio" false is Net, unless blockingio is true and
// rawioLast (PostgreSQL's blockingio took precedence, MySQL's rawio did).
// prop returns a property's value, "" when unset; def is the backend's
// mode when none is set. A mode this system cannot run (blocking or poller
// off Linux) is an error naming the property.
func Setting(prop func(string) string, prefix string, rawioLast bool, def Mode) (Mode, error) {
	name := prefix + ".io"
	v := prop(name)
	if v == "" {
		name = prefix + ".blockingio"
		switch prop(name) {
		case "true":
			v = string(Blocking)
		case "false":
			v = string(Poller)
		case "auto":
			v = string(Auto)
		}
		if prop(prefix+".rawio") == "false" && !(rawioLast && v == string(Blocking)) {
			name, v = prefix+".rawio", string(Net)
		}
	}
	switch Mode(v) {
	case "":
		return def, nil
	case Auto:
		return Auto, nil
	case Net:
		return Net, nil
	case Blocking, Poller:
		if !rawAvailable {
			return "", fmt.Errorf("property %s: %s I/O needs Linux (this is %s); use %s.io=net or auto", name, v, runtime.GOOS, prefix)
		}
		return Mode(v), nil
	}
	return "", fmt.Errorf("property %s=%q: the values are %s", name, v, strings.Join(Modes, ", "))
}

// PollerOrNet is Poller where raw I/O is available, else Net: PostgreSQL's
// default (pg.io unset). Blocking in the kernel is asked for (blocking, or
// auto): measured side by side with pgbench it did not cost less than the
// poller (docs/performance.md). MySQL's default is Auto: beside sysbench,
// blocking cost less than the poller there.
func PollerOrNet() Mode {
	if rawAvailable {
		return Poller
	}
	return Net
}

// Dial wraps dial so that its connections are of mode m (Blocking,
// Poller; Net and Auto leave them as dial makes them). A connection that
// cannot be converted is closed and fails the dial: a session never runs
// in a mode other than the one asked for.
func Dial(m Mode, dial DialFunc) DialFunc {
	if m != Blocking && m != Poller {
		return dial
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return Convert(m, c)
	}
}

// Convert returns c as a connection of mode m (c itself for Net). When it
// cannot, c is closed and the error says why.
func Convert(m Mode, c net.Conn) (net.Conn, error) {
	var (
		rc  net.Conn
		err error
	)
	switch m {
	case Blocking:
		rc, err = NewBlocking(c)
	case Poller:
		rc, err = NewPoller(c)
	default:
		return c, nil
	}
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("%s I/O on a connection to %s: %w", m, c.RemoteAddr(), err)
	}
	return rc, nil
}

// ModeOf is the mode of a connection made by Dial, or of the one below
// it (TLS's): what actually runs.
func ModeOf(c net.Conn) Mode {
	for {
		switch x := c.(type) {
		case *BlockingConn:
			return Blocking
		case *PollerConn:
			return Poller
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
			continue
		}
		return Net
	}
}
