package server

import (
	"context"
	"net"
	"strings"

	"github.com/docbench/docbench/internal/server/proc"
)

// launchServer starts the server that launch(port) describes on a port from
// freePort, and records its process in own. It tries up to three times
// while the start fails with an error containing bindErr: the port is free
// when we pick it but may be taken before the server binds it (parallel
// test binaries).
func launchServer(ctx context.Context, own *proc.Owned, bindErr string, launch func(port int) *proc.Launch) (int, error) {
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return 0, err
		}
		l := launch(port)
		_, done, err := l.Run(ctx)
		if err == nil {
			own.Started(l.Cmd, done)
			return port, nil
		}
		if attempt == 2 || !strings.Contains(err.Error(), bindErr) {
			return 0, err
		}
	}
}

// freePort asks the kernel for a free TCP port on 127.0.0.1.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}
