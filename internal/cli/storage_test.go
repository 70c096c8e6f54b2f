package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStorageCommand: a malformed line is one line naming it, exit 2;
// --doc maps a document in each format, equal to SQLite's own size.
func TestStorageCommand(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.ndjson")
	if err := os.WriteFile(bad, []byte("{\"a\":1}\n\n{\"a\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := docbench(t, "storage", bad, "-t", "sqlite:"+filepath.Join(dir, "s.db"))
	if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "bad.ndjson:3: not a JSON object") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	good := filepath.Join(dir, "good.ndjson")
	if err := os.WriteFile(good, []byte("{\"a\":1,\"b\":\"aa\"}\n{\"a\":\"aa\",\"b\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := docbench(t, "storage", good, "--doc", "2", "-t", "sqlite:"+filepath.Join(dir, "s.db"), "--format", "json")
	var r struct {
		Formats []struct {
			Format string `json:"format"`
			Total  int    `json:"total_bytes"`
		} `json:"formats"`
		Servers []struct{ Bytes int } `json:"servers"`
	}
	if code != 0 || json.Unmarshal([]byte(stdout), &r) != nil || len(r.Formats) != 3 || len(r.Servers) != 1 {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, stdout, stderr)
	}
	// {"a":"aa","b":1}: jsonb 36 bytes (the worked example of docs/documents.md), BSON 22.
	if r.Formats[0].Total != 36 || r.Formats[1].Total != r.Servers[0].Bytes || r.Formats[2].Total != 22 {
		t.Errorf("byte maps %+v, SQLite says %d", r.Formats, r.Servers[0].Bytes)
	}
	// --layout applies where the backend has that layout; SQLite keeps its one.
	if _, stderr, code := docbench(t, "storage", good, "--layout", "document", "-t", "sqlite:"+filepath.Join(dir, "s.db")); code != 0 ||
		!strings.Contains(stderr, "sqlite has no layout=document (its layouts: column): measured in its default, column") {
		t.Errorf("--layout document on SQLite: exit %d, %s", code, stderr)
	}
	if _, stderr, code := docbench(t, "storage", good, "--doc", "7", "-t", "sqlite:"+filepath.Join(dir, "s.db")); code != 2 || !strings.Contains(stderr, "no document on line 7") {
		t.Errorf("--doc 7: exit %d, %s", code, stderr)
	}
}
