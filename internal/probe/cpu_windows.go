package probe

import "syscall"

// SelfCPU returns docbench's own CPU seconds (user + kernel).
func SelfCPU() float64 {
	var created, exited, kernel, user syscall.Filetime
	h, err := syscall.GetCurrentProcess()
	if err != nil {
		return 0
	}
	if err := syscall.GetProcessTimes(h, &created, &exited, &kernel, &user); err != nil {
		return 0
	}
	// Durations in 100 ns units (Filetime.Nanoseconds is for instants).
	ft := func(t syscall.Filetime) float64 {
		return float64(uint64(t.HighDateTime)<<32|uint64(t.LowDateTime)) / 1e7
	}
	return ft(kernel) + ft(user)
}
