package server

import (
	"net"
	"strings"
)

// retryBind runs launch, which starts a server on a port from freePort, up
// to three times while it fails with an error containing bindErr: the port is
// free when we pick it but may be taken before the server binds it (parallel
// test binaries).
func retryBind(bindErr string, launch func() error) error {
	for attempt := 0; ; attempt++ {
		err := launch()
		if err == nil || attempt == 2 || !strings.Contains(err.Error(), bindErr) {
			return err
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
