package proc

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// CacheRoot is where docbench keeps what it downloads and builds (server
// binaries, initdb templates, the test peers). As root the
// postgres processes run as an unprivileged account that cannot enter /root
// (mode 700), so the cache lives in /var/cache/docbench (mode 755) instead of
// os.UserCacheDir. $DOCBENCH_CACHE chooses another place.
func CacheRoot() (string, error) {
	if d := os.Getenv("DOCBENCH_CACHE"); d != "" {
		return d, nil
	}
	if os.Geteuid() == 0 {
		return "/var/cache/docbench", nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "docbench"), nil
}

// LockCache takes an exclusive, cross-process lock on the cache root, so that
// concurrent test binaries download once and create the system user once.
func LockCache(root string) (unlock func(), err error) {
	return LockCacheFile(root, ".lock")
}

// LockCacheFile is LockCache with a lock file of its own, for work that
// takes long and must not hold up the others (building the MySQL 8 peer).
func LockCacheFile(root, name string) (unlock func(), err error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(root, name), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := lock(f, true); err != nil {
		f.Close()
		return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
	}
	return func() { f.Close() }, nil // closing releases the flock
}

// TryLock takes an exclusive lock on f without waiting, released when f is
// closed; syscall.EWOULDBLOCK when another process holds it.
func TryLock(f *os.File) error { return lock(f, false) }

// CopyFile copies the regular file src to dst, which must not exist, with
// permission bits perm.
func CopyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, perm)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	return err
}
