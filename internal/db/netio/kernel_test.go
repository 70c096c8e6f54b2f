package netio

import (
	"errors"
	"os"
	"runtime"
	"strconv"
	"testing"
	"time"
)

// A read blocked in the kernel does not stop the rest of the program, even
// on one P: it yields every time slice, and a garbage collection (which
// must stop every goroutine) completes while it waits.
func TestKernelConnWaitDoesNotStallTheRuntime(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	c, _ := loopback(t, Kernel)
	done := make(chan error, 1)
	c.SetDeadline(time.Now().Add(time.Second))
	go func() {
		_, err := c.Read(make([]byte, 10))
		done <- err
	}()
	time.Sleep(50 * time.Millisecond) // the read is waiting
	start := time.Now()
	runtime.GC()
	if el := time.Since(start); el > 500*time.Millisecond {
		t.Errorf("a garbage collection took %s while a read waited", el)
	}
	if err := <-done; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("read: %v", err)
	}
}

// KernelWait: true and false decide; auto blocks with up to two threads
// per CPU, or, when the user set GOMAXPROCS, with fewer threads than Ps.
func TestKernelWait(t *testing.T) {
	p := startProcs
	cases := []struct {
		userProcs bool
		prop      string
		threads   int
		want      bool
	}{
		{false, "auto", 0, true}, {false, "auto", 1, true}, {false, "auto", 2 * p, true}, {false, "auto", 2*p + 1, false},
		{false, "", 2*p + 1, false}, {false, "true", 2*p + 1, true}, {false, "false", 1, false},
		{true, "auto", p - 1, true}, {true, "auto", p, false}, {true, "true", p, true},
	}
	for _, c := range cases {
		v := ""
		if c.userProcs {
			v = strconv.Itoa(p)
		}
		t.Setenv("GOMAXPROCS", v)
		if got := KernelWait(c.prop, c.threads); got != c.want {
			t.Errorf("GOMAXPROCS=%q: KernelWait(%q, %d) = %v, want %v", v, c.prop, c.threads, got, c.want)
		}
	}
}
