package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// doc --paths gives each path its type, depth and the share of the load's
// documents that have it.
func TestDocPathsShares(t *testing.T) {
	file := filepath.Join(t.TempDir(), "docs.ndjson")
	lines := `{"sku":"A-100","stock":{"store":3},"items":[{"qty":1}],"discontinued":false}
{"sku":"A-101","stock":{"store":0},"items":[]}
{"sku":"B-200","stock":{"store":1},"items":[{"qty":2},{}],"discontinued":true}
`
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := docbench(t, "doc", "--paths", "-p", "document.replay="+file, "-p", "recordcount=3")
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{
		`PATH +TYPE +DEPTH +PRESENT \(share of the 3 documents\)`,
		`\nsku +string +1 +100%\n`,
		`\nstock\.store +integer +2 +100%\n`,
		`\nitems\.qty +integer +2 +66\.7%\n`,
		`\ndiscontinued +boolean +1 +66\.7%\n`,
	} {
		if !regexp.MustCompile(want).MatchString(stdout) {
			t.Errorf("doc --paths lacks %s:\n%s", want, stdout)
		}
	}
	stdout, _, _ = docbench(t, "doc", "--paths", "-p", "document.shape=blog", "-p", "recordcount=100000")
	if !strings.Contains(stdout, "share of 2,000 documents spread over the 100,000") {
		t.Errorf("doc --paths over 100,000 records:\n%s", stdout)
	}
}
