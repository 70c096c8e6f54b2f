package servertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// The MySQL 8 peer is go-mysql-server (github.com/dolthub/go-mysql-server),
// an in-memory engine that speaks MySQL 8's protocol and dialect, served by
// the small program in tools/mysql-peer. That directory is a Go module of its
// own, so that docbench's module does not take go-mysql-server's
// dependencies; the peer is built from a checkout of the repository with the
// go command, for docbench's tests (no MySQL 8 server can be installed on the
// machines docbench is developed on). It checks that docbench's MySQL 8 SQL
// parses and means what it should; it is never a performance reference.
//
// Its runtime directories are os.TempDir()/docbench-mysqlpeer-*.
var mysqlPeers = peerKind{
	name:    "MySQL 8 peer",
	pattern: "docbench-mysqlpeer-*",
	grace:   5 * time.Second,
	mark: func(dir string) string {
		return "\x00--ready\x00" + filepath.Join(dir, peerPortFile) + "\x00"
	},
}

// MySQLPeerOptions configures a MySQL 8 peer.
type MySQLPeerOptions struct {
	// Source is the peer's module directory (tools/mysql-peer); empty: found
	// beside this source file, else above the working directory.
	Source string
	// Log receives progress messages (the first build); may be nil.
	Log io.Writer
}

// MySQLPeer is a running MySQL 8 peer (go-mysql-server, in memory), owned by
// this process: it listens on 127.0.0.1 only, accepts root without a
// password, and dies with us (parent-death signal, and it exits when its
// standard input, a pipe from us, closes). Stop it with Stop.
type MySQLPeer struct {
	URL        string // mysql://root@127.0.0.1:PORT/docbench
	Binary     string // the peer's executable (in the cache)
	*stdinPeer        // Port, LogFile; Kill, Stop
}

// StartMySQLPeer starts a private MySQL 8 peer on a free loopback port. On
// first use it builds the peer with `go build` (needing the go command and
// the Go module proxy for go-mysql-server) and caches the binary under a
// hash of the peer's sources; when that or the start fails, the error starts
// "MySQL 8 peer unavailable:".
func StartMySQLPeer(ctx context.Context, o MySQLPeerOptions) (*MySQLPeer, error) {
	if err := proc.Supported(); err != nil {
		return nil, mysqlPeers.unavailable(err)
	}
	CleanStaleMySQLPeers()
	bin, err := MySQLPeerBinary(ctx, o.Source, o.Log)
	if err != nil {
		return nil, mysqlPeers.unavailable(err)
	}
	// The peer binds port 0 and writes the port it got to the ready file.
	p, err := mysqlPeers.start(ctx, func(_, portFile string) *exec.Cmd {
		return exec.Command(bin, "--host", "127.0.0.1", "--port", "0", "--ready", portFile, "--exit-on-stdin-eof")
	})
	if err != nil {
		return nil, mysqlPeers.unavailable(err)
	}
	url := fmt.Sprintf("mysql://root@127.0.0.1:%d/docbench", p.Port)
	return &MySQLPeer{URL: url, Binary: bin, stdinPeer: p}, nil
}

// CleanStaleMySQLPeers kills peers whose docbench process is gone and
// removes their runtime directories; StartMySQLPeer calls it. A peer is
// killed only when its command line names its runtime directory.
func CleanStaleMySQLPeers() { mysqlPeers.cleanStale() }

// mysqlPeerSource finds tools/mysql-peer: beside this source file (a test
// binary built from the checkout), else in the working directory or one of
// its parents.
func mysqlPeerSource() (string, error) {
	const rel = "tools/mysql-peer"
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		if dir := filepath.Join(filepath.Dir(file), "..", "..", "..", rel); isPeer(dir) {
			return filepath.Clean(dir), nil
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for dir := wd; ; dir = filepath.Dir(dir) {
		if isPeer(filepath.Join(dir, rel)) {
			return filepath.Join(dir, rel), nil
		}
		if filepath.Dir(dir) == dir {
			return "", fmt.Errorf("the peer's sources (%s of the docbench repository) are not beside %s or above %s: it is built from a checkout, for docbench's tests", rel, "internal/server/servertest", wd)
		}
	}
}

// isPeer reports whether dir holds the peer's module.
func isPeer(dir string) bool {
	b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && strings.Contains(string(b), "module github.com/docbench/docbench/tools/mysql-peer\n")
}

// goTool finds the go command: on $PATH, else in $GOROOT/bin (go test
// sets GOROOT for the test binaries it runs).
func goTool() (string, error) {
	if g, err := exec.LookPath("go"); err == nil {
		return g, nil
	}
	if root := os.Getenv("GOROOT"); root != "" {
		if g := filepath.Join(root, "bin", "go"); proc.IsExecutableFile(g) {
			return g, nil
		}
	}
	return "", errors.New("no go command on PATH (the peer is built with it)")
}

// MySQLPeerBinary returns the path of the peer's executable, building it
// from src (empty: found by mysqlPeerSource) into the cache (next to the
// PostgreSQL binaries) on first use; it is rebuilt when the peer's module
// (every file but hidden ones) or the go command's version changes.
func MySQLPeerBinary(ctx context.Context, src string, log io.Writer) (string, error) {
	if src == "" {
		var err error
		if src, err = mysqlPeerSource(); err != nil {
			return "", err
		}
	} else if !isPeer(src) {
		return "", fmt.Errorf("%s is not the peer's module (tools/mysql-peer of the docbench repository)", src)
	}
	goCmd, err := goTool()
	if err != nil {
		return "", err
	}
	out, err := exec.CommandContext(ctx, goCmd, "env", "GOVERSION").Output()
	if err != nil {
		return "", fmt.Errorf("%s env GOVERSION: %w", goCmd, err)
	}
	key, err := sourcesKey(os.DirFS(src), strings.TrimSpace(string(out)))
	if err != nil {
		return "", fmt.Errorf("hash the peer's sources: %w", err)
	}
	// A lock of its own: a build of minutes must not hold up the starts of
	// other servers in parallel test binaries.
	return cachedBuild("mysql-peer", key, "mysql-peer", ".mysql-peer.lock", log, func(dir string) error {
		return buildMySQLPeer(ctx, goCmd, src, filepath.Join(dir, "mysql-peer"), log)
	})
}

// buildMySQLPeer runs `go build` in src with the output in bin.
func buildMySQLPeer(ctx context.Context, goCmd, src, bin string, log io.Writer) error {
	if log != nil {
		fmt.Fprintf(log, "building the MySQL 8 peer (go-mysql-server) from %s; the first build downloads its modules and takes minutes…\n", src)
	}
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Dir = src
	// The caller's environment (GOPROXY, GOMODCACHE, GOFLAGS…), outside any
	// go.work, without cgo: go-mysql-server is pure Go.
	cmd.Env = append(os.Environ(), "GOWORK=off", "CGO_ENABLED=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("build the MySQL 8 peer: go build in %s: %v:\n%s", src, err, proc.Tail(out, 15))
	}
	return nil
}
