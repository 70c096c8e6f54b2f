//go:build !linux

package report

func readSync() Clock {
	return Clock{Absent: "the clock's synchronization state is read on Linux only"}
}
