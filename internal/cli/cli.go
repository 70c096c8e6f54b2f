// Package cli implements docbench's subcommands. main only calls Main.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all" // registers every backend
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/runner"
)

// Version is set at build time (-ldflags "-X …/internal/cli.Version=v1.2.3").
var Version = "dev"

// ExitError carries a specific exit status.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// app holds what subcommands share; no package-level mutable state.
type app struct {
	stdout, stderr io.Writer
}

// Main runs docbench with args and returns the process exit status. It
// prints errors as one line and never lets a Go stack trace reach the user.
// The first Ctrl-C (or SIGTERM) stops the command gracefully: a phase
// stops issuing operations, cancels those still in flight after its drain
// bound and writes its partial result. The second returns at once.
func Main(args []string, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return execute(args, stdout, stderr, sigs)
}

// execute is Main interrupted by what arrives on sigs.
func execute(args []string, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	go func() { done <- run(ctx, args, stdout, stderr) }()
	select {
	case code := <-done:
		return code
	case <-sigs:
	}
	cancel()
	fmt.Fprintln(stderr, "docbench: interrupted: stopping (interrupt again to quit at once)")
	select {
	case code := <-done:
		return code
	case <-sigs:
		fmt.Fprintln(stderr, "docbench: interrupted again: quitting without waiting for what is in flight")
		return exitInterrupted
	}
}

// run runs docbench's command line under ctx and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(stderr, "docbench: internal error: %v (set DOCBENCH_DEBUG=1 for a stack trace)\n", p)
			if os.Getenv("DOCBENCH_DEBUG") != "" {
				fmt.Fprintf(stderr, "%s", debug.Stack())
			}
			code = 3
		}
	}()
	a := &app{stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	args, err := ycsbArgs(args)
	if err != nil {
		fmt.Fprintf(stderr, "docbench: %s\n", err)
		return 2
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err = root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	var ee *ExitError
	if bad := (*engine.BadInput)(nil); errors.As(err, &bad) && !errors.As(err, &ee) {
		err = &ExitError{Code: exitUsage, Err: err}
	}
	switch {
	case errors.As(err, &ee):
	case errors.Is(err, runner.ErrInterrupted):
	case ctx.Err() != nil:
		// Cut short by the interrupt (a connection, a statement, a server
		// starting): the interrupt is the cause.
		err = fmt.Errorf("%w: %w", runner.ErrInterrupted, err)
	default:
		err = usageError(root, err)
	}
	fmt.Fprintf(stderr, "docbench: %s\n", oneLine(db.Redact(err.Error())))
	switch {
	case errors.As(err, &ee):
		return ee.Code
	case errors.Is(err, runner.ErrInterrupted):
		return exitInterrupted
	}
	return exitFailed
}

// oneLine folds a multi-line message (pgx joins its attempts with newlines)
// into one line.
func oneLine(msg string) string {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, "; ")
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "docbench",
		Short: "Reproducible, fair benchmarks for JSON-document workloads",
		Long: `docbench runs YCSB-compatible workloads against PostgreSQL (jsonb), SQLite (jsonb)
and more, with honest latency (HdrHistogram, coordinated-omission-corrected under a
target rate) and results that record everything they ran under.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.Version = tool().Version
	root.SetVersionTemplate(versionLine() + "\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		msg := flagError(c, err)
		if c.HasParent() {
			msg = c.Name() + ": " + msg
		}
		return &ExitError{Code: 2, Err: fmt.Errorf("%s (see `%s --help`)", msg, c.CommandPath())}
	})
	root.AddCommand(a.phaseCommand(runner.Load), a.phaseCommand(runner.Run), a.quickstartCommand(),
		a.targetsCommand(), a.versionCommand(), a.docCommand(), a.verifyCommand(),
		a.studyCommand(), a.reportCommand(), a.compareCommand(), a.storageCommand(),
		a.mergeCommand(), a.kubeCommand(), a.capacityCommand(), a.cacheCommand(), propertiesTopic())
	// Flags renamed since: the old names still work in users' scripts.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if n, ok := renamedFlags[name]; ok {
			name = n
		}
		return pflag.NormalizedName(name)
	})
	addExamples(root)
	addCompletions(root)
	return root
}

// renamedFlags maps old flag names to their names now: --max-error-rate
// took a share, never a rate like --rate's operations per second.
var renamedFlags = map[string]string{"max-error-rate": "max-error-share"}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print docbench's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(a.stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what `docbench version` and `docbench --version` print.
func versionLine() string {
	t := tool()
	build := goVersion()
	if t.Dirty {
		build = "with uncommitted changes, " + build
	}
	switch {
	case t.Revision != "":
		build = "commit " + t.Revision + " " + build
	case t.Version == "dev":
		build = unstamped(executable()) + "; " + build
	}
	return fmt.Sprintf("docbench %s (%s)", t.Version, build)
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown Go"
}
