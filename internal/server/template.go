package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/docbench/docbench/internal/server/proc"
)

// initdbArgs are the options of every cluster; they are part of the
// template key, so changing them invalidates cached templates.
var initdbArgs = []string{"-A", "trust", "-U", "postgres", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"}

// initData creates a fresh cluster in dataDir. initdb takes about a second,
// a copy of its output a quarter of that, so the first initdb for a given
// binary directory and version is kept in the cache as a template and later
// clusters are copies of it. (Copies share the system identifier, which is
// of no consequence for private, unreplicated servers.)
func initData(ctx context.Context, bin, version, dataDir string, acct *account) error {
	root, err := proc.CacheRoot()
	if err != nil {
		return err
	}
	h := sha256.Sum256(fmt.Appendf(nil, "%s\x00%s\x00%q", bin, version, initdbArgs))
	tmpl := filepath.Join(root, "initdb-"+version+"-"+hex.EncodeToString(h[:6]))
	if _, err := os.Stat(filepath.Join(tmpl, "PG_VERSION")); err == nil {
		if err := copyTree(tmpl, dataDir, acct); err == nil {
			return nil
		}
		os.RemoveAll(dataDir) // fall back to initdb
	}

	cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), append([]string{"-D", dataDir}, initdbOptions(version)...)...)
	proc.Prepare(cmd, filepath.Dir(dataDir))
	acct.apply(cmd)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %v: %s", err, proc.Tail(out, 10))
	}
	saveTemplate(root, dataDir, tmpl) // best effort: a failure only costs speed
	return nil
}

// saveTemplate copies a fresh data directory to tmpl, atomically.
func saveTemplate(root, dataDir, tmpl string) {
	unlock, err := proc.LockCache(root)
	if err != nil {
		return
	}
	defer unlock()
	if _, err := os.Stat(tmpl); err == nil {
		return
	}
	tmp, err := os.MkdirTemp(root, "initdb-tmp-*")
	if err != nil {
		return
	}
	defer os.RemoveAll(tmp)
	if copyTree(dataDir, filepath.Join(tmp, "data"), nil) == nil {
		os.Rename(filepath.Join(tmp, "data"), tmpl)
	}
}

// copyTree copies the directory src to dst (which must not exist),
// preserving permission bits, and gives everything to acct.
func copyTree(src, dst string, acct *account) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.IsDir():
			if err := os.Mkdir(target, info.Mode().Perm()); err != nil {
				return err
			}
		case d.Type().IsRegular():
			if err := proc.CopyFile(path, target, info.Mode().Perm()); err != nil {
				return err
			}
		default:
			return fmt.Errorf("%s: unexpected file type %s", path, d.Type())
		}
		return acct.chown(target)
	})
}
