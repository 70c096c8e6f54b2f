//go:build !race

package runner

// raceDetector: the tests run under -race, which multiplies memory.
const raceDetector = false
