//go:build unix

package proc

import (
	"os"
	"syscall"
)

// Supported returns why docbench cannot run its own servers on this
// system: nil, on Unix.
func Supported() error { return nil }

// Signal sends sig to process pid; 0 only checks that it exists.
func Signal(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }

// lock takes an exclusive flock on f, released when f is closed; without
// wait it fails with syscall.EWOULDBLOCK when another holds it.
func lock(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	return syscall.Flock(int(f.Fd()), how)
}

// setOwnGroup makes the process the leader of a process group of its own.
func setOwnGroup(attr *syscall.SysProcAttr) { attr.Setpgid = true }

// SetCredential makes the process run as uid and gid, with no
// supplementary groups.
func SetCredential(attr *syscall.SysProcAttr, uid, gid uint32) {
	attr.Credential = &syscall.Credential{Uid: uid, Gid: gid, Groups: []uint32{}}
}

// Owner returns the user, group and mode bits of path.
func Owner(path string) (uid, gid, mode uint32, err error) {
	var st syscall.Stat_t
	if err := syscall.Stat(path, &st); err != nil {
		return 0, 0, 0, err
	}
	return st.Uid, st.Gid, uint32(st.Mode), nil
}
