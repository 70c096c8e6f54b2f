package report

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Environment describes the machine docbench ran on.
type Environment struct {
	OS        string `json:"os"`
	Arch      string `json:"arch"`
	Kernel    string `json:"kernel,omitempty"`
	Hostname  string `json:"hostname,omitempty"`
	CPUs      int    `json:"cpus"`
	CPUModel  string `json:"cpu_model,omitempty"`
	MemoryB   int64  `json:"memory_bytes,omitempty"`
	GoVersion string `json:"go_version"`
	// GoMaxProcs is GOMAXPROCS while the phase ran: docbench raises it to
	// one more than the threads when workers block in the kernel (an open
	// loop's sleepers, sessions that wait for the server there).
	GoMaxProcs int `json:"gomaxprocs,omitempty"`
	// IOMode is how the sessions' connections waited for the server:
	// blocking, poller or net (pg.io, mysql.io; docs/backends.md),
	// comma-separated when sessions differed; empty when the backend does
	// not say.
	IOMode string `json:"io_mode,omitempty"`
}

// ReadEnvironment reads the facts of this machine that a result needs.
func ReadEnvironment() Environment {
	e := Environment{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), GoVersion: runtime.Version()}
	e.Hostname, _ = os.Hostname()
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.Kernel = strings.TrimSpace(string(b))
	}
	e.CPUModel = procField("/proc/cpuinfo", "model name")
	if m := procField("/proc/meminfo", "MemTotal"); m != "" {
		if kb, err := strconv.ParseInt(strings.TrimSuffix(m, " kB"), 10, 64); err == nil {
			e.MemoryB = kb * 1024
		}
	}
	return e
}

// procField returns the value of the first "name: value" line of a /proc file.
func procField(path, name string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == name {
			return strings.TrimSpace(v)
		}
	}
	return ""
}
