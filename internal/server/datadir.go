package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
)

// A persistent data directory (PostgresOptions.DataDir) outlives the
// docbench process, so `docbench load` and `docbench run` see the same
// database. It is guarded by dataLockFile inside it: an flock held for as
// long as a docbench runs a server on it (released by the kernel when that
// docbench dies) and holding the docbench's PID for error messages.
const dataLockFile = "docbench.lock"

// DefaultDataDir is the persistent data directory of the managed server for
// a zonky version ("18.6.0"; empty means DefaultPostgresVersion): one per
// major.minor, next to the binary cache, e.g.
// /var/cache/docbench/data/pg-18.6 as root. StartPostgres creates it, and
// its parents, traversable by the account the server runs as.
func DefaultDataDir(version string) string {
	if version == "" {
		version = DefaultPostgresVersion
	}
	root, err := proc.CacheRoot()
	if err != nil {
		root = filepath.Join(os.TempDir(), "docbench-cache-"+strconv.Itoa(os.Getuid()))
	}
	return filepath.Join(root, "data", "pg-"+majorMinor(version))
}

// majorMinor cuts "18.6.0" to "18.6".
func majorMinor(version string) string {
	f := strings.SplitN(version, ".", 3)
	if len(f) >= 2 {
		return f[0] + "." + f[1]
	}
	return version
}

// majorOf returns the major version as PG_VERSION spells it: "18" for
// "18.6", "9.6" for "9.6.24".
func majorOf(version string) string {
	f := strings.Split(version, ".")
	if n, err := strconv.Atoi(f[0]); err == nil && n < 10 && len(f) > 1 {
		return f[0] + "." + f[1]
	}
	return f[0]
}

// dataLock is a held lock on a persistent data directory.
type dataLock struct{ f *os.File }

func (l *dataLock) release() {
	if l != nil && l.f != nil {
		l.f.Close() // closing releases the flock
		l.f = nil
	}
}

// openDataDir makes dir a usable persistent cluster for the server binaries
// in bin (version as `postgres --version` reports it) and locks it: it is
// created when missing or empty, checked otherwise. On success the caller
// owns the lock and must release it when its server has exited.
func openDataDir(ctx context.Context, bin, version, dir string, acct *account) (*dataLock, error) {
	if err := checkNotRuntime(dir); err != nil {
		return nil, err
	}
	if err := mkdirParents(filepath.Dir(dir)); err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if err := checkSearchable(dir, acct); err != nil {
		return nil, err
	}
	empty, err := isEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: %w", dir, err)
	}
	if empty {
		if err := createDataDir(ctx, bin, version, dir, acct); err != nil {
			return nil, fmt.Errorf("data directory %s: create: %w", dir, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "PG_VERSION")); err != nil {
		return nil, fmt.Errorf("data directory %s is not empty and not a PostgreSQL data directory (no PG_VERSION)", dir)
	}
	lock, err := lockDataDir(dir, acct)
	if err != nil {
		return nil, err
	}
	if err := checkDataDir(dir, version, acct); err != nil {
		lock.release()
		return nil, err
	}
	return lock, nil
}

// checkNotRuntime refuses data directories inside what CleanStale takes for
// runtime directories, which it removes.
func checkNotRuntime(dir string) error {
	pattern := filepath.Join(os.TempDir(), runDirPattern)
	for d := dir; ; d = filepath.Dir(d) {
		if ok, _ := filepath.Match(pattern, d); ok {
			return fmt.Errorf("data directory %s is inside a docbench runtime directory (%s), which are removed: choose another place", dir, pattern)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// mkdirParents creates the missing directories of path with mode 0755
// whatever the umask, so that the server account can traverse them.
func mkdirParents(path string) error {
	if fi, err := os.Stat(path); err == nil {
		if !fi.IsDir() {
			return fmt.Errorf("%s is not a directory", path)
		}
		return nil
	}
	if err := mkdirParents(filepath.Dir(path)); err != nil {
		return err
	}
	if err := os.Mkdir(path, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	return os.Chmod(path, 0o755)
}

// checkSearchable checks that the server account can reach dir: every
// ancestor must grant it search permission. The account runs with its
// primary group only (account.apply clears supplementary groups), so owner,
// group and other bits tell all.
func checkSearchable(dir string, acct *account) error {
	if acct == nil {
		return nil
	}
	for d := filepath.Dir(dir); ; d = filepath.Dir(d) {
		uid, gid, mode, err := proc.Owner(d)
		if err != nil {
			return fmt.Errorf("data directory %s: %s: %w", dir, d, err)
		}
		bit := uint32(0o001)
		switch {
		case uid == acct.uid:
			bit = 0o100
		case gid == acct.gid:
			bit = 0o010
		}
		if mode&bit == 0 {
			return fmt.Errorf("data directory %s: the server runs as user %s, which cannot enter %s (mode %04o, uid %d): chmod o+x it or choose another directory",
				dir, acct.name, d, mode&0o7777, uid)
		}
		if filepath.Dir(d) == d {
			return nil
		}
	}
}

// isEmptyDir reports whether path is missing or an empty directory.
func isEmptyDir(path string) (bool, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return false, err
	} else if !fi.IsDir() {
		return false, errors.New("not a directory")
	}
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}

// createDataDir builds a cluster in a temporary sibling of dir and renames
// it into place (rename replaces an empty directory), so that a crash
// leaves dir missing or complete, never half made. When another docbench
// wins the race, its cluster is kept and ours discarded.
func createDataDir(ctx context.Context, bin, version, dir string, acct *account) error {
	parent, base := filepath.Split(dir)
	prefix := "." + base + ".init-"
	removeDeadBuilds(parent, prefix)
	tmp, err := os.MkdirTemp(parent, prefix+strconv.Itoa(os.Getpid())+"-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := acct.chown(tmp); err != nil {
		return err
	}
	data := filepath.Join(tmp, "data")
	if err := initData(ctx, bin, version, data, acct); err != nil {
		return err
	}
	if err := os.Rename(data, dir); err != nil {
		if errors.Is(err, syscall.ENOTEMPTY) || errors.Is(err, syscall.EEXIST) {
			return nil // another docbench created it first
		}
		return err
	}
	return nil
}

// removeDeadBuilds removes temporary clusters of createDataDir calls whose
// process is gone.
func removeDeadBuilds(parent, prefix string) {
	matches, _ := filepath.Glob(filepath.Join(parent, prefix+"*"))
	for _, m := range matches {
		rest := strings.TrimPrefix(filepath.Base(m), prefix)
		pid, err := strconv.Atoi(strings.SplitN(rest, "-", 2)[0])
		if err == nil && !proc.Alive(pid) {
			os.RemoveAll(m)
		}
	}
}

// lockDataDir takes the docbench lock of dir without waiting.
func lockDataDir(dir string, acct *account) (*dataLock, error) {
	path := filepath.Join(dir, dataLockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data directory %s: lock: %w", dir, err)
	}
	if err := proc.TryLock(f); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			who := "another docbench"
			if pid := proc.ReadPID(path); pid > 0 {
				who += fmt.Sprintf(" (pid %d)", pid)
			}
			return nil, fmt.Errorf("data directory %s is in use by %s", dir, who)
		}
		return nil, fmt.Errorf("data directory %s: lock %s: %w", dir, path, err)
	}
	acct.chown(path) // tidiness only: the server never opens it
	if err := f.Truncate(0); err == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataLock{f: f}, nil
}

// checkDataDir runs under the lock: the cluster must be of our major
// version and owned by the server account, and no server may run on it. A
// postmaster.pid left by a dead server is removed: PostgreSQL would refuse
// to start if its PID now belonged to an unrelated process.
func checkDataDir(dir, version string, acct *account) error {
	b, err := os.ReadFile(filepath.Join(dir, "PG_VERSION"))
	if err != nil {
		return fmt.Errorf("data directory %s: %w", dir, err)
	}
	if got, want := strings.TrimSpace(string(b)), majorOf(version); got != want {
		return fmt.Errorf("data directory %s was created by PostgreSQL %s, this server is PostgreSQL %s: use another directory, or remove it to start afresh", dir, got, version)
	}
	if acct != nil {
		uid, _, _, err := proc.Owner(dir)
		if err != nil {
			return fmt.Errorf("data directory %s: %w", dir, err)
		}
		if uid != acct.uid {
			return fmt.Errorf("data directory %s is owned by uid %d, but the server runs as %s (uid %d): chown -R %s it", dir, uid, acct.name, acct.uid, acct.name)
		}
	}
	pidFile := filepath.Join(dir, "postmaster.pid")
	pm := proc.ReadPID(pidFile)
	if pm == 0 {
		return nil
	}
	// A server whose docbench was just killed shuts itself down (parent
	// death signal): give it a moment.
	proc.WaitFor(10*time.Second, func() bool { return !proc.Alive(pm) || !isPostmasterOf(pm, dir) })
	switch {
	case !proc.Alive(pm):
	case runtime.GOOS == "linux" && !isPostmasterOf(pm, dir):
		// The PID was reused by an unrelated process.
	default:
		return fmt.Errorf("data directory %s is in use by a PostgreSQL server (pid %d) that docbench does not manage", dir, pm)
	}
	if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("data directory %s: remove stale postmaster.pid: %w", dir, err)
	}
	return nil
}
