// Package studies embeds docbench's built-in study files, so that
// `docbench study NAME` works from the binary alone.
package studies

import (
	"embed"
	"sort"
	"strings"
)

// FS holds the built-in study files (NAME.yaml).
//
//go:embed *.yaml
var FS embed.FS

// Lookup returns the built-in study NAME (without .yaml).
func Lookup(name string) ([]byte, bool) {
	b, err := FS.ReadFile(strings.TrimSuffix(name, ".yaml") + ".yaml")
	return b, err == nil
}

// Names lists the built-in studies.
func Names() []string {
	entries, _ := FS.ReadDir(".")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
	}
	sort.Strings(out)
	return out
}
