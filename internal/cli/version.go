package cli

import (
	"os"
	"path/filepath"
	"regexp"
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

// unstamped says why a build carries no revision: Go stamps version-control
// information into `go build` and `go install` builds of a checkout, but
// not into `go run` builds unless -buildvcs=true is given.
func unstamped(exe string) string {
	if goRunExe.MatchString(filepath.ToSlash(exe)) {
		return "built by go run: no revision stamped, as go run stamps none without -buildvcs=true"
	}
	return "no revision stamped: built outside a git checkout, or with -buildvcs=false"
}

// goRunExe matches the path of a binary `go run` built: in a go-build
// directory's b001/exe/, or kept in the build cache (Go 1.24 on).
var goRunExe = regexp.MustCompile(`(/go-build[0-9]+/b[0-9]+/exe|/[0-9a-f]{2}/[0-9a-f]{64}-d)/[^/]+$`)

// executable is the running binary's path ("" when unknown).
func executable() string {
	exe, _ := os.Executable()
	return exe
}
