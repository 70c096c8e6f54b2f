package server

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/docbench/docbench/internal/server/proc"
)

// CacheDir is where docbench keeps what it downloads and builds: PostgreSQL
// binaries, initdb templates, the persistent cluster of postgres:embedded
// (data/), and the test peers. $DOCBENCH_CACHE chooses it; otherwise
// /var/cache/docbench as root and the user's cache directory (XDG) else.
func CacheDir() (string, error) { return proc.CacheRoot() }

// CacheEntry is one top-level entry of the cache and its size on disk.
type CacheEntry struct {
	Name  string
	Bytes int64
}

// CacheContents lists the cache's entries (none when it does not exist).
func CacheContents() ([]CacheEntry, error) {
	root, err := proc.CacheRoot()
	if err != nil {
		return nil, err
	}
	des, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []CacheEntry
	for _, de := range des {
		if de.Name() == ".lock" {
			continue
		}
		var n int64
		filepath.WalkDir(filepath.Join(root, de.Name()), func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				if fi, err := d.Info(); err == nil {
					n += fi.Size()
				}
			}
			return nil
		})
		out = append(out, CacheEntry{Name: de.Name(), Bytes: n})
	}
	return out, nil
}

// CleanCache stops managed servers whose docbench process is gone, then
// removes everything in the cache: what was downloaded or built comes back
// on next use; the persistent postgres:embedded cluster (data/) and what
// was loaded into it do not.
func CleanCache() ([]CacheEntry, error) {
	CleanStale()
	root, err := proc.CacheRoot()
	if err != nil {
		return nil, err
	}
	entries, err := CacheContents()
	if err != nil || len(entries) == 0 {
		return nil, err
	}
	unlock, err := proc.LockCache(root)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var removed []CacheEntry
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(root, e.Name)); err != nil {
			return removed, err
		}
		removed = append(removed, e)
	}
	return removed, nil
}
