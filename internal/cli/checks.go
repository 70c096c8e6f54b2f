package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// nonNegative refuses a negative --warmup or --duration in the flags' own
// words.
func nonNegative(durations map[string]time.Duration) error {
	for _, name := range []string{"warmup", "duration", "latency-limit"} {
		if d := durations[name]; d < 0 {
			return &ExitError{Code: exitUsage, Err: fmt.Errorf("--%s %s: must be zero or more", name, d)}
		}
	}
	return nil
}

// checkOutParent refuses a --out directory whose parent does not exist: a
// mistyped path is said, not created.
func checkOutParent(dir string) error {
	parent := filepath.Dir(filepath.Clean(dir))
	if _, err := os.Stat(parent); errors.Is(err, os.ErrNotExist) {
		return &ExitError{Code: exitUsage, Err: fmt.Errorf("--out %s: directory %s does not exist: create it first", dir, parent)}
	}
	return nil
}

// plural is "1 entry", "3 entries".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return db.Thousands(int64(n)) + " " + many
}
