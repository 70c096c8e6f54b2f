package server

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// Each PostgreSQL server lives in its own runtime directory,
// os.TempDir()/docbench-pg-*, holding proc.OwnerFile, the data directory
// (or, for a persistent one elsewhere, dataDirFile naming it), the socket
// directory and the server log.
const (
	runDirPattern = "docbench-pg-*"
	// dataDirFile, when present, holds the path of the persistent data
	// directory the server uses instead of the runtime directory's "data".
	dataDirFile = "datadir"
)

// CleanStale stops servers whose docbench process is gone and removes their
// runtime directories. StartPostgres and StartInstalledPostgres call it; it is
// exported for a CLI "cleanup" command. Directories of live owners and
// directories it may not remove (other users') are left alone.
func CleanStale() {
	proc.CleanStaleDirs(runDirPattern, func(dir string) bool {
		data := filepath.Join(dir, "data")
		if b, err := os.ReadFile(filepath.Join(dir, dataDirFile)); err == nil {
			// Persistent: stop its server, but the data stays where it is.
			data = strings.TrimSpace(string(b))
		}
		if pm := proc.ReadPID(filepath.Join(data, "postmaster.pid")); proc.Alive(pm) {
			if !isPostmasterOf(pm, data) {
				return false // cannot prove it is ours: leave it
			}
			killWait(pm)
		}
		return true
	})
}

// killWait asks a postmaster for immediate shutdown (SIGQUIT), then SIGKILLs
// it if it is still there after five seconds.
func killWait(pid int) {
	proc.Signal(pid, syscall.SIGQUIT)
	if !proc.WaitGone(pid, 5*time.Second) {
		proc.KillAndWait(pid, 2*time.Second)
	}
}

// isPostmasterOf reports whether pid is a postgres process whose working
// directory is dataDir (the postmaster chdirs into its data directory).
func isPostmasterOf(pid int, dataDir string) bool {
	return proc.RunsIn(pid, "postgres", dataDir)
}
