package probe

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat times: 100 on every
// Linux architecture Go supports.
const clockTicks = 100

// procStat is what TreeCPU needs of /proc/PID/stat.
type procStat struct {
	comm string
	ppid int
	// ticks is utime + stime + cutime + cstime: the process and its
	// children that it has waited for (a postmaster reaps its backends).
	ticks uint64
}

func readStat(path string) (procStat, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return procStat{}, err
	}
	// pid (comm) state ppid … utime(14) stime(15) cutime(16) cstime(17)
	s := string(b)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("%s: unexpected format", path)
	}
	f := strings.Fields(s[end+1:])
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("%s: unexpected format", path)
	}
	st := procStat{comm: s[open+1 : end]}
	st.ppid, _ = strconv.Atoi(f[1])
	for _, x := range f[11:15] {
		n, _ := strconv.ParseInt(x, 10, 64)
		if n > 0 {
			st.ticks += uint64(n)
		}
	}
	return st, nil
}

// TreeCPU returns the CPU seconds of process pid and its children (those
// running, and through pid's cutime/cstime those it has reaped).
func TreeCPU(pid int) (float64, error) {
	root, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("server process %d: %v", pid, err)
	}
	ticks := root.ticks
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range paths {
		st, err := readStat(p)
		if err != nil || st.ppid != pid {
			continue
		}
		ticks += st.ticks
	}
	return float64(ticks) / clockTicks, nil
}

// ProcessName returns the command name of a process on this machine.
func ProcessName(pid int) (string, error) {
	st, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	return st.comm, nil
}

// ParentPID returns a process's parent.
func ParentPID(pid int) (int, error) {
	st, err := readStat(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	return st.ppid, nil
}
