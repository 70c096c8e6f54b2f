//go:build !linux

package proc

import "syscall"

// setParentDeath is unavailable outside Linux; stale-instance cleanup covers
// servers left behind by a crashed docbench.
func setParentDeath(attr *syscall.SysProcAttr, sig syscall.Signal) {}

// RunsIn cannot identify processes without /proc; stale servers are then
// left alone (their directories are still removed once they exit).
func RunsIn(pid int, comm, dir string) bool { return false }
