package servertest

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// What the test peers (MongoDB, MySQL 8) share: each binds port 0, writes
// the port it got to a file in its runtime directory, and exits when its
// standard input, a pipe from us, closes. Each lives in its own runtime
// directory os.TempDir()/docbench-KIND-*, holding proc.OwnerFile,
// peerPIDFile, the port file and the peer's log.
const (
	peerPIDFile  = "peer.pid"
	peerPortFile = "port"
)

// A peerKind is what tells the test peers apart.
type peerKind struct {
	name    string        // "MongoDB peer", for messages
	pattern string        // of its runtime directories, "docbench-mongo-*"
	grace   time.Duration // how long it may take to exit after stdin closes
	// mark(dir) is on the command line of the peer of runtime directory dir:
	// stale cleanup kills only processes that carry it.
	mark func(dir string) string
}

// stdinPeer is a running test peer, owned by this process.
type stdinPeer struct {
	Port    int
	LogFile string // the peer's stdout and stderr

	own   proc.Owned // runtime directory and peer process
	stdin io.Closer  // closing it asks the peer to exit
	kind  peerKind
}

// unavailable is the error of a peer that cannot be had: "NAME unavailable: …".
func (k peerKind) unavailable(err error) error {
	return fmt.Errorf("%s unavailable: %w", k.name, err)
}

// start runs the peer command(runDir, portFile) in a new runtime directory,
// with its output in the log, and waits until it reports its port. On
// failure nothing is left behind and the error, naming the program,
// carries the tail of the log.
func (k peerKind) start(ctx context.Context, command func(runDir, portFile string) *exec.Cmd) (_ *stdinPeer, err error) {
	runDir, err := proc.NewRunDir(k.pattern)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	p := &stdinPeer{LogFile: filepath.Join(runDir, "peer.log"), own: proc.Owned{RunDir: runDir}, kind: k}
	portFile := filepath.Join(runDir, peerPortFile)
	cmd := command(runDir, portFile)
	proc.Prepare(cmd, runDir)
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	l := proc.Launch{Cmd: cmd, Name: k.name, What: cmd.Path, Output: p.LogFile, Logs: []string{p.LogFile},
		DeathSig: syscall.SIGKILL,
		Started:  func(pid int) { proc.WritePID(filepath.Join(runDir, peerPIDFile), pid) },
		Ready:    func() int { return proc.ReadPID(portFile) },
		Halt:     p.halt,
	}
	port, done, err := l.Run(ctx)
	if err != nil {
		p.stdin.Close() // when it did not start
		return nil, err
	}
	p.Port = port
	p.own.Started(cmd, done)
	return p, nil
}

// cleanStale kills the peers of this kind whose docbench process is gone and
// removes their runtime directories. A peer is killed only when its command
// line carries its mark.
func (k peerKind) cleanStale() {
	proc.CleanStaleDirs(k.pattern, func(dir string) bool {
		if pid := proc.ReadPID(filepath.Join(dir, peerPIDFile)); proc.Alive(pid) {
			cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if err != nil || !strings.Contains(string(cmdline), k.mark(dir)) {
				return false // cannot prove it is ours: leave it
			}
			proc.KillAndWait(pid, 5*time.Second)
		}
		return true
	})
}

// Kill ends the peer with SIGKILL, as a crash would; Stop still cleans up
// afterwards.
func (p *stdinPeer) Kill() error { return p.own.Kill() }

// Stop shuts the peer down (its data is in memory and is gone) and removes
// its runtime directory. It is idempotent.
func (p *stdinPeer) Stop() error {
	return p.own.Shutdown(func() error { return p.halt(p.own.Cmd, p.own.Done) }, nil)
}

// halt closes the peer's standard input (it exits on end of file), then
// escalates SIGTERM → SIGKILL until it has exited. (SIGQUIT would only make
// a JVM print a thread dump.)
func (p *stdinPeer) halt(cmd *exec.Cmd, done <-chan struct{}) error {
	p.stdin.Close()
	return proc.StopProcess(cmd, done, p.kind.name,
		proc.StopStep{Wait: p.kind.grace},
		proc.StopStep{Sig: syscall.SIGTERM, Wait: 5 * time.Second},
		proc.StopStep{Sig: syscall.SIGKILL, Wait: 5 * time.Second})
}

// sourcesKey hashes prefix and the files of fsys but hidden ones (by path,
// in order): a cached build is redone when the key changes.
func sourcesKey(fsys fs.FS, prefix string) (string, error) {
	var files []string
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.HasPrefix(d.Name(), ".") && path != "." {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	sort.Strings(files)
	h := sha256.New()
	if prefix != "" {
		fmt.Fprintf(h, "%s\x00", prefix)
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)[:6]), nil
}

// cachedBuild returns the path of CACHE/NAME-KEY/file, building it on first
// use: build writes file into the directory it is given, under the cache,
// which is then renamed into place, so that a half-built one is never seen.
// lockFile, in the cache, serialises the builders of all processes. log
// (may be nil) hears how long the build took.
func cachedBuild(name, key, file, lockFile string, log io.Writer, build func(dir string) error) (string, error) {
	root, err := proc.CacheRoot()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, name+"-"+key)
	path := filepath.Join(dir, file)
	built := func() bool { fi, err := os.Stat(path); return err == nil && fi.Mode().IsRegular() }
	if built() {
		return path, nil
	}
	unlock, err := proc.LockCacheFile(root, lockFile)
	if err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	defer unlock()
	if built() {
		return path, nil // built by another process while we waited
	}
	start := time.Now()
	tmp, err := os.MkdirTemp(root, name+"-build-*")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // no-op after a successful rename
	if err := build(tmp); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes 0700
		return "", err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if log != nil {
		fmt.Fprintf(log, "built %s in %s\n", path, time.Since(start).Round(time.Millisecond))
	}
	return path, nil
}
