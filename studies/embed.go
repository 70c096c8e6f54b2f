// Package studies embeds docbench's built-in study files, so that
// `docbench study NAME` works from the binary alone, and the inventory of
// the sources' statements they test (StatementsFile).
package studies

import (
	"embed"
	"sort"
	"strings"
)

// FS holds the built-in study files (NAME.yaml) and StatementsFile.
//
//go:embed *.yaml
var FS embed.FS

// StatementsFile is the inventory of the sources' testable statements and
// the claims that test them; it is not a study.
const StatementsFile = "statements.yaml"

// Lookup returns the built-in study NAME (without .yaml).
func Lookup(name string) ([]byte, bool) {
	file := strings.TrimSuffix(name, ".yaml") + ".yaml"
	if file == StatementsFile {
		return nil, false
	}
	b, err := FS.ReadFile(file)
	return b, err == nil
}

// Names lists the built-in studies.
func Names() []string {
	entries, _ := FS.ReadDir(".")
	var out []string
	for _, e := range entries {
		if e.Name() != StatementsFile {
			out = append(out, strings.TrimSuffix(e.Name(), ".yaml"))
		}
	}
	sort.Strings(out)
	return out
}
