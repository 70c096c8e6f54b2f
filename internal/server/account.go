package server

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"strings"
	"syscall"

	"github.com/docbench/docbench/internal/server/proc"
)

// account is the OS user the postgres processes run as; nil means the
// current user (no credential switch).
type account struct {
	name     string
	uid, gid uint32
}

// embeddedUser is the system account for the managed server when docbench
// runs as root. A dedicated account rather than "nobody": nobody is meant to
// own no files, and a data directory owned by it would be writable by every
// other daemon that runs as nobody.
const embeddedUser = "docbench"

func lookupAccount(name string) (*account, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return nil, err
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &account{name: name, uid: uint32(uid), gid: uint32(gid)}, nil
}

// ensureAccount returns the account name, creating it as a system user
// without home or login shell when absent. The caller holds the cache lock,
// which serializes concurrent creators.
func ensureAccount(name string) (*account, error) {
	if a, err := lookupAccount(name); err == nil {
		return a, nil
	}
	out, err := exec.Command("useradd", "--system", "--user-group", "--no-create-home",
		"--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
		"--comment", "docbench managed servers", name).CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("create system user %s: useradd: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return lookupAccount(name)
}

// serverAccount picks who runs the server: the current user unless we are
// root (initdb and postgres refuse to run as root); as root, the named
// system account, created when create is true.
func serverAccount(name string, create bool) (*account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	if create {
		return ensureAccount(name)
	}
	a, err := lookupAccount(name)
	if err != nil {
		return nil, fmt.Errorf("running as root needs the %q system user: %w", name, err)
	}
	return a, nil
}

// apply makes cmd run as the account.
func (a *account) apply(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	if a != nil {
		proc.SetCredential(cmd.SysProcAttr, a.uid, a.gid)
	}
}

// chown gives path to the account (no-op for the current user).
func (a *account) chown(path string) error {
	if a == nil {
		return nil
	}
	return os.Chown(path, int(a.uid), int(a.gid))
}
