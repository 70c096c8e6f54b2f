package proc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// setParentDeath makes the kernel send sig to the child when we die. Go sets
// it after switching credentials, where the kernel would otherwise clear it.
// (Strictly it fires when the spawning OS thread exits; the Go runtime does
// not retire threads unless a goroutine exits while locked to one.)
func setParentDeath(attr *syscall.SysProcAttr, sig syscall.Signal) {
	attr.Pdeathsig = sig
}

// RunsIn reports whether pid is a process named comm whose working directory
// is dir (postgres and mariadbd chdir into their data directory).
func RunsIn(pid int, comm, dir string) bool {
	name, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil || strings.TrimSpace(string(name)) != comm {
		return false
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	want, err := filepath.EvalSymlinks(dir)
	if err != nil {
		want = dir
	}
	return cwd == want
}
