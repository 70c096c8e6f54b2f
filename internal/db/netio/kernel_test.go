package netio

import (
	"errors"
	"os"
	"runtime"
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
// per CPU.
func TestKernelWait(t *testing.T) {
	cpus := runtime.NumCPU()
	for _, c := range []struct {
		prop    string
		threads int
		want    bool
	}{
		{"auto", 0, true}, {"auto", 1, true}, {"auto", 2 * cpus, true}, {"auto", 2*cpus + 1, false},
		{"", 2*cpus + 1, false}, {"true", 2*cpus + 1, true}, {"false", 1, false},
	} {
		if got := KernelWait(c.prop, c.threads); got != c.want {
			t.Errorf("KernelWait(%q, %d) = %v, want %v", c.prop, c.threads, got, c.want)
		}
	}
}
