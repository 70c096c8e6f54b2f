//go:build !linux

package runner

import "time"

// Without clock_nanosleep the precise pacers are the sleep-and-spin one.
func newNanoPacer(spin time.Duration) Pacer { return &spinPacer{margin: spinMargin} }

func newFDPacer(spin time.Duration) Pacer { return &spinPacer{margin: spinMargin} }
