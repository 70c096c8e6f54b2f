package server

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Each server lives in its own runtime directory, os.TempDir()/docbench-pg-*,
// holding ownerFile (the PID of the docbench process that started it), the
// data directory (or, for a persistent one elsewhere, dataDirFile naming
// it), the socket directory and the server log.
const (
	runDirPattern = "docbench-pg-*"
	ownerFile     = "owner.pid"
	// dataDirFile, when present, holds the path of the persistent data
	// directory the server uses instead of the runtime directory's "data".
	dataDirFile = "datadir"
)

// alive reports whether a process with this PID exists.
func alive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}

func readPID(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if !s.Scan() {
		return 0
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(s.Text()))
	return pid
}

// CleanStale stops servers whose docbench process is gone and removes their
// runtime directories. StartPostgres and StartLocalPostgres call it; it is
// exported for a CLI "cleanup" command. Directories of live owners and
// directories it may not remove (other users') are left alone.
func CleanStale() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), runDirPattern))
	for _, dir := range dirs {
		owner := readPID(filepath.Join(dir, ownerFile))
		if owner == 0 {
			// Written right after the directory is created: a young directory
			// without it belongs to a docbench that is starting up.
			if fi, err := os.Stat(dir); err != nil || time.Since(fi.ModTime()) < time.Minute {
				continue
			}
		} else if alive(owner) {
			continue
		}
		data := filepath.Join(dir, "data")
		if b, err := os.ReadFile(filepath.Join(dir, dataDirFile)); err == nil {
			// Persistent: stop its server, but the data stays where it is.
			data = strings.TrimSpace(string(b))
		}
		if pm := readPID(filepath.Join(data, "postmaster.pid")); alive(pm) {
			if !isPostmasterOf(pm, data) {
				continue // cannot prove it is ours: leave it
			}
			killWait(pm)
		}
		os.RemoveAll(dir)
	}
}

// killWait asks a postmaster for immediate shutdown (SIGQUIT), then SIGKILLs
// it if it is still there after five seconds.
func killWait(pid int) {
	syscall.Kill(pid, syscall.SIGQUIT)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if !alive(pid) {
			return
		}
	}
	syscall.Kill(pid, syscall.SIGKILL)
	for i := 0; i < 100 && alive(pid); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}
