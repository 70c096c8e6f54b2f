package report

import "golang.org/x/sys/unix"

// readSync asks the kernel (adjtimex) whether NTP synchronizes the clock.
func readSync() Clock {
	var tx unix.Timex
	state, err := unix.Adjtimex(&tx)
	if err != nil {
		return Clock{Absent: "adjtimex: " + err.Error()}
	}
	synced := state != unix.TIME_ERROR && tx.Status&unix.STA_UNSYNC == 0
	maxErr, estErr := int64(tx.Maxerror), int64(tx.Esterror)
	return Clock{Synchronized: &synced, MaxErrorUS: &maxErr, EstErrorUS: &estErr}
}
