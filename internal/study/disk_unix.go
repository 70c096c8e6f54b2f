//go:build unix

package study

import (
	"os"
	"syscall"
)

// diskOf returns the file system directory d is on (its device number) and
// the bytes free on it for an unprivileged user.
func diskOf(d string) (dev uint64, free int64, err error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(d, &st); err != nil {
		return 0, 0, err
	}
	if fi, err := os.Stat(d); err == nil {
		if s, ok := fi.Sys().(*syscall.Stat_t); ok {
			dev = uint64(s.Dev)
		}
	}
	return dev, int64(st.Bavail) * int64(st.Bsize), nil
}

// syncDisks writes every dirty page back (sync(2)), so that dropping the
// page cache then drops them too.
func syncDisks() { syscall.Sync() }
