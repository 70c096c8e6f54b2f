package cli

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestVersionIdentifiesTheBuild builds the binary from this checkout with
// version-control stamping on: `docbench version` and every result name the
// commit (and say when the tree had uncommitted changes), not just "dev".
func TestVersionIdentifiesTheBuild(t *testing.T) {
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("git rev-parse HEAD: %v (CI runs in a clone)", err)
		}
		t.Skipf("not a git checkout: %v", err)
	}
	commit := strings.TrimSpace(string(head))
	gitDir, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir").Output()
	common, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	if string(gitDir) != string(common) {
		// go build does not stamp version-control information in a linked
		// worktree (its .git is a file); CI runs in a clone.
		t.Skip("a linked git worktree: go build stamps no version-control information here")
	}
	// Its own build, not the shared binary: a user's go build stamps the
	// revision (-buildvcs=auto in a clone), but GOFLAGS may say
	// -buildvcs=false, as on the project's own machines.
	bin := filepath.Join(t.TempDir(), "docbench")
	if out, err := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "../../cmd/docbench").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "commit "+commit) || strings.HasPrefix(string(out), "docbench dev ") {
		t.Errorf("docbench version = %q, want the module version and commit %s", out, commit)
	}
	res := filepath.Join(t.TempDir(), "r.json")
	if out, err := exec.Command(bin, "run", "-t", "null:", "-P", "workloadc", "-p", "operationcount=100",
		"--out", res, "--format", "json").CombinedOutput(); err != nil {
		t.Fatalf("run: %v\n%s", err, out)
	}
	b, err := os.ReadFile(res)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Tool struct {
			Version  string `json:"version"`
			Revision string `json:"revision"`
		} `json:"tool"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if r.Tool.Revision != commit || r.Tool.Version == "dev" || r.Tool.Version == "" {
		t.Errorf("result tool = %+v, want version and revision %s", r.Tool, commit)
	}
}

// TestVersionOfGoRun: Go stamps no revision into a `go run` build (under
// the default -buildvcs=auto), and docbench version says so instead of a
// bare "dev"; with -buildvcs=true the go run build names its commit (in a
// clone: a linked worktree gets no stamp either way).
func TestVersionOfGoRun(t *testing.T) {
	for exe, goRun := range map[string]bool{
		"/tmp/go-build1664367875/b001/exe/docbench":                                                            true,
		"/root/.cache/go-build/41/41a8e5d6c2d0de5655a5d75285c3311032779f7bb3c3ab1efb3aeb3d75ba74fd-d/docbench": true,
		"/usr/local/bin/docbench":    false,
		"/home/me/go-build/docbench": false,
	} {
		if got := strings.HasPrefix(unstamped(exe), "built by go run"); got != goRun {
			t.Errorf("unstamped(%q) = %q", exe, unstamped(exe))
		}
	}
	goRun := func(buildvcs string) string {
		cmd := exec.Command("go", "run", "-buildvcs="+buildvcs, "../../cmd/docbench", "version")
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go run -buildvcs=%s: %v\n%s", buildvcs, err, out)
		}
		return string(out)
	}
	const said = "docbench dev (built by go run: no revision stamped, as go run stamps none without -buildvcs=true; go"
	if out := goRun("auto"); !strings.HasPrefix(out, said) {
		t.Errorf("go run docbench version = %q, want %q…", out, said)
	}
	head, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		t.Skipf("not a git checkout: %v", err)
	}
	gitDir, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-dir").Output()
	common, _ := exec.Command("git", "rev-parse", "--path-format=absolute", "--git-common-dir").Output()
	out := goRun("true")
	switch {
	case string(gitDir) != string(common) && !strings.HasPrefix(out, said):
		t.Errorf("go run -buildvcs=true docbench version in a linked worktree = %q, want %q…", out, said)
	case string(gitDir) == string(common) && !strings.Contains(out, "commit "+strings.TrimSpace(string(head))):
		t.Errorf("go run -buildvcs=true docbench version = %q, want commit %s", out, head)
	}
}
