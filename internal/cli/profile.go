package cli

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/spf13/pflag"
)

// profileFlags are --cpuprofile and --memprofile of load, run and study.
type profileFlags struct{ cpu, mem string }

func (p *profileFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&p.cpu, "cpuprofile", "", "write a CPU profile of docbench itself to this file (go tool pprof)")
	fl.StringVar(&p.mem, "memprofile", "", "write a heap profile of docbench itself (allocations and memory in use at the end) to this file")
}

// start begins CPU profiling and checks that the memory profile can be
// written; the returned stop ends profiling and writes the memory profile.
// Both files are created before anything runs, so a bad path costs nothing.
func (p *profileFlags) start() (stop func() error, err error) {
	var cpu, mem *os.File
	if p.mem != "" {
		if mem, err = os.Create(p.mem); err != nil {
			return nil, &ExitError{Code: 2, Err: fmt.Errorf("--memprofile: %w", err)}
		}
	}
	if p.cpu != "" {
		if cpu, err = os.Create(p.cpu); err != nil {
			if mem != nil {
				mem.Close()
			}
			return nil, &ExitError{Code: 2, Err: fmt.Errorf("--cpuprofile: %w", err)}
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			cpu.Close()
			if mem != nil {
				mem.Close()
			}
			return nil, fmt.Errorf("--cpuprofile: %w", err)
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			if err := cpu.Close(); err != nil {
				errs = append(errs, fmt.Errorf("--cpuprofile: %w", err))
			}
		}
		if mem != nil {
			runtime.GC() // the heap profile shows memory in use as of the last GC
			if err := pprof.Lookup("heap").WriteTo(mem, 0); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile: %w", err))
			}
			if err := mem.Close(); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile: %w", err))
			}
		}
		return errors.Join(errs...)
	}, nil
}

// profiled wraps a command's work in the profiles asked for.
func (p *profileFlags) profiled(run func() error) error {
	stop, err := p.start()
	if err != nil {
		return err
	}
	err = run()
	return errors.Join(err, stop())
}
