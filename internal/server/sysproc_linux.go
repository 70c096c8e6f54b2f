package server

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

// isPostmasterOf reports whether pid is a postgres process whose working
// directory is dataDir (the postmaster chdirs into its data directory).
func isPostmasterOf(pid int, dataDir string) bool {
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm")
	if err != nil || strings.TrimSpace(string(comm)) != "postgres" {
		return false
	}
	cwd, err := os.Readlink("/proc/" + strconv.Itoa(pid) + "/cwd")
	if err != nil {
		return false
	}
	want, err := filepath.EvalSymlinks(dataDir)
	if err != nil {
		want = dataDir
	}
	return cwd == want
}
