package proc

import (
	"errors"
	"os"
	"syscall"
)

// errUnsupported is every start of a server of docbench's own on Windows:
// process groups, parent-death signals, flock and the server accounts are
// Unix's.
var errUnsupported = errors.New("embedded servers need Linux or macOS; give a server URL with -t")

// Supported returns why docbench cannot run its own servers on Windows.
func Supported() error { return errUnsupported }

// Signal fails: no server of ours runs on Windows.
func Signal(pid int, sig syscall.Signal) error { return errUnsupported }

// lock fails: nothing is downloaded into the cache on Windows.
func lock(f *os.File, wait bool) error { return errUnsupported }

func setOwnGroup(attr *syscall.SysProcAttr) {}

// SetCredential does nothing: docbench never switches accounts on Windows.
func SetCredential(attr *syscall.SysProcAttr, uid, gid uint32) {}

// Owner fails: Windows files have no Unix owner and mode.
func Owner(path string) (uid, gid, mode uint32, err error) { return 0, 0, 0, errUnsupported }
