// Package workloads holds the YCSB 0.17 core workload files workloada …
// workloadf, embedded so the binary runs them by name without the files on
// disk.
package workloads

import "embed"

// FS holds the built-in workload files, named workloada … workloadf.
//
//go:embed workload?
var FS embed.FS

// Lookup returns the content of the built-in workload file name
// (e.g. "workloada") and whether it exists.
func Lookup(name string) ([]byte, bool) {
	if len(name) != len("workloada") {
		return nil, false
	}
	b, err := FS.ReadFile(name)
	if err != nil {
		return nil, false
	}
	return b, true
}

// Names returns the names of the built-in workload files in order.
func Names() []string {
	entries, err := FS.ReadDir(".")
	if err != nil {
		return nil
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
