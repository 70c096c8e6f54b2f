package dbtest

import (
	"context"
	"strings"
	"testing"
	"time"
)

// serverBound is how long a test waits for a server to show what it is
// waiting for: generous, so that a busy machine never fails it; the test
// fails only when the server never shows it.
const serverBound = 20 * time.Second

// CancelStopsServer runs a long statement (run, which returns when the
// statement does) under a context it cancels once the server shows the
// statement (running lists the statements of ours the server is running),
// and checks that the statement returns an error and that the server then
// stops running it, both within serverBound. It returns the statement's
// error, for the caller to check.
func CancelStopsServer(t *testing.T, run func(ctx context.Context) error, running func() ([]string, error)) error {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- run(ctx) }()
	if !waitFor(t, func(left []string) bool { return len(left) > 0 }, running) {
		select {
		case err := <-errc:
			t.Fatalf("the statement returned (%v) before the server showed it", err)
		default:
		}
		t.Fatalf("the server never showed the statement within %s", serverBound)
	}
	cancel()
	var err error
	select {
	case err = <-errc:
		if err == nil {
			t.Fatal("the cancelled statement returned no error")
		}
	case <-time.After(serverBound):
		t.Fatalf("the cancelled statement has not returned after %s", serverBound)
	}
	if !waitFor(t, func(left []string) bool { return len(left) == 0 }, running) {
		left, _ := running()
		t.Fatalf("%s after the cancel the server still runs: %s", serverBound, strings.Join(left, "; "))
	}
	return err
}

// waitFor polls running until ok holds of its answer, for at most
// serverBound.
func waitFor(t *testing.T, ok func([]string) bool, running func() ([]string, error)) bool {
	t.Helper()
	for end := time.Now().Add(serverBound); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
		left, err := running()
		if err != nil {
			t.Fatalf("asking the server what runs: %v", err)
		}
		if ok(left) {
			return true
		}
	}
	return false
}
