// Command mysql-peer serves an in-memory, MySQL-8-compatible database
// engine (github.com/dolthub/go-mysql-server) on a loopback port, for
// docbench's tests of its MySQL 8 dialect: no MySQL 8 server can be
// installed on the machines docbench is developed on. It checks that
// docbench's SQL parses and means what it should; it is never a
// performance reference.
//
//	mysql-peer --host 127.0.0.1 --port 0 --ready FILE --exit-on-stdin-eof
//
// The server accepts user root without a password, reports the version
// 8.0.31-go-mysql-server (VERSION() and the handshake), and writes the port
// it listens on, one decimal number, to the --ready file once it accepts
// connections (--port 0 picks a free port). With --exit-on-stdin-eof it
// exits when its standard input closes, so that it dies with the process
// that started it.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/sirupsen/logrus"
)

// versionPostfix follows go-mysql-server's MySQL version (8.0.31) in
// VERSION() and the handshake: docbench records the server as a MySQL 8
// compatible engine, not MySQL.
const versionPostfix = "go-mysql-server"

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mysql-peer:", err)
		os.Exit(1)
	}
}

func run() error {
	host := flag.String("host", "127.0.0.1", "address to listen on")
	port := flag.Int("port", 0, "port to listen on (0: a free one)")
	ready := flag.String("ready", "", "file to write the port to once the server listens")
	stdinEOF := flag.Bool("exit-on-stdin-eof", false, "exit when standard input closes")
	flag.Parse()
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	logrus.SetLevel(logrus.WarnLevel)

	pro := memory.NewDBProvider()
	pro.WithOption(memory.NativeIndexProvider(true))
	engine := sqle.New(analyzer.NewDefault(pro), &sqle.Config{VersionPostfix: versionPostfix})
	_, version, _ := sql.SystemVariables.GetGlobal("version")

	l, err := net.Listen("tcp", net.JoinHostPort(*host, strconv.Itoa(*port)))
	if err != nil {
		return err
	}
	cfg := server.Config{Protocol: "tcp", Listener: l, Version: fmt.Sprint(version) + "-" + versionPostfix}
	srv, err := server.NewServer(cfg, engine, sql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		return err
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Start() }()
	if *ready != "" {
		if err := writeReady(*ready, l.Addr().(*net.TCPAddr).Port); err != nil {
			srv.Close()
			return err
		}
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	eof := make(chan struct{})
	if *stdinEOF {
		go func() {
			io.Copy(io.Discard, os.Stdin)
			close(eof)
		}()
	}
	select {
	case err := <-errc:
		return err
	case <-stop:
	case <-eof:
	}
	return srv.Close()
}

// writeReady writes the port atomically: a reader never sees half of it.
func writeReady(path string, port int) error {
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp")
	if err := os.WriteFile(tmp, []byte(strconv.Itoa(port)+"\n"), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
