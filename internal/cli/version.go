package cli

import (
	"runtime/debug"

	"github.com/docbench/docbench/internal/report"
)

// tool identifies the running build: Version when it was set at link time,
// otherwise the module version Go stamps from version control (a tag, or a
// pseudo-version carrying the commit, "+dirty" when the tree had changes),
// and in both cases the commit and whether the tree was modified.
func tool() report.Tool {
	t := report.Tool{Name: "docbench", Version: Version}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return t
	}
	if t.Version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		t.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			t.Revision = s.Value
		case "vcs.modified":
			t.Dirty = s.Value == "true"
		}
	}
	return t
}
