//go:build !linux

package runner

import "time"

// Without clock_nanosleep the precise pacers are the sleep-and-spin one.
func newNanoPacer(sp spinner, spin time.Duration) Pacer {
	return &spinPacer{spinner: sp, margin: spinMargin}
}

func newFDPacer(sp spinner, spin time.Duration) Pacer {
	return &spinPacer{spinner: sp, margin: spinMargin}
}
