package cli

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/docbench/docbench/internal/workload"
)

// Exit statuses (docs/commands.md, "Exit codes").
const (
	exitFailed      = 1   // a run or command failed
	exitUsage       = 2   // a bad flag, property, target, command or file
	exitInterrupted = 130 // Ctrl-C or SIGTERM: partial results written
)

// usageError turns cobra's own errors about the command line (unknown
// command, missing required flag, extra arguments) into one readable line
// with exit status 2; other errors are returned as they are.
func usageError(root *cobra.Command, err error) error {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown command"):
		return &ExitError{Code: exitUsage, Err: errors.New(unknownCommand(msg))}
	case strings.HasPrefix(msg, "required flag"):
		return &ExitError{Code: exitUsage, Err: errors.New(requiredFlags(root, msg))}
	case strings.HasPrefix(msg, "accepts "), strings.HasPrefix(msg, "requires "),
		strings.HasPrefix(msg, "invalid argument"), strings.HasPrefix(msg, "unknown flag"),
		strings.HasPrefix(msg, "unknown shorthand flag"), strings.HasPrefix(msg, "flag needs an argument"):
		return &ExitError{Code: exitUsage, Err: err}
	}
	return err
}

var quotedFlag = regexp.MustCompile(`"([\w-]+)"`)

// requiredFlags names the missing flags as they are typed, with their short
// forms: `-t/--target TARGET`, not "target".
func requiredFlags(root *cobra.Command, msg string) string {
	var missing []string
	for _, m := range quotedFlag.FindAllStringSubmatch(msg, -1) {
		name := "--" + m[1]
		for _, c := range root.Commands() {
			if f := c.Flags().Lookup(m[1]); f != nil && f.Shorthand != "" {
				name = "-" + f.Shorthand + "/" + name
				break
			}
		}
		missing = append(missing, name)
	}
	if len(missing) == 0 {
		return msg + " (see `docbench help`)"
	}
	return fmt.Sprintf("missing %s (see `docbench help`)", strings.Join(missing, " and "))
}

// unknownCommand reformats cobra's multi-line "unknown command … Did you
// mean this?" message as one line.
func unknownCommand(msg string) string {
	head, rest, _ := strings.Cut(msg, "\n")
	var did []string
	for _, l := range strings.Split(rest, "\n") {
		if strings.HasPrefix(l, "\t") {
			did = append(did, fmt.Sprintf("%q", strings.TrimSpace(l)))
		}
	}
	head = strings.TrimSpace(head)
	if len(did) > 0 {
		return fmt.Sprintf("%s; did you mean %s? (see `docbench help`)", head, strings.Join(did, " or "))
	}
	return head + " (see `docbench help`)"
}

var invalidArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag`)

var unknownFlag = regexp.MustCompile(`^unknown flag: --([\w-]+)$`)

// flagError says what a flag accepts instead of quoting the parser
// (`strconv.ParseFloat: parsing "abc": invalid syntax`), and which flag an
// unknown one may have meant.
func flagError(c *cobra.Command, err error) string {
	if m := unknownFlag.FindStringSubmatch(err.Error()); m != nil {
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
		if near := workload.Nearest(m[1], names); near != "" {
			return fmt.Sprintf("%s (did you mean --%s?)", err, near)
		}
		return err.Error()
	}
	m := invalidArg.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	f := c.Flags().Lookup(m[2])
	if f == nil {
		return err.Error()
	}
	return fmt.Sprintf("--%s %q: want %s", m[2], m[1], flagKind(f))
}

// flagKind names, in words, what a flag's value must be.
func flagKind(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "float64", "float32":
		return "a number, e.g. 1000 or 2.5"
	case "int", "int64", "int32", "uint", "uint64", "uint32":
		return "a whole number, e.g. 4"
	case "duration":
		return "a duration with its unit, e.g. 30s, 5m or 1h30m"
	case "bool":
		return "true or false"
	}
	return "a " + f.Value.Type()
}

// ycsbArgs accepts YCSB's single-dash client flags with their YCSB meaning
// (-threads N, -target OPS, -s) and refuses, in one line, those docbench
// spells differently (-load, -t for the transaction phase, -db): pflag would
// otherwise read "-threads 4" as "-t hreads" and fail on "4".
func ycsbArgs(args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		switch a {
		case "-threads":
			out = append(out, "--threads")
		case "-target":
			out = append(out, "--rate")
		case "-s":
			// YCSB's status line every 10 s: docbench prints one by default
			// (--status).
		case "-load":
			return nil, errors.New("YCSB's -load: docbench spells the load phase `docbench load`")
		case "-db":
			return nil, errors.New("YCSB's -db: docbench names the database with -t/--target TARGET (see `docbench targets`)")
		case "-t":
			if i+1 == len(args) || strings.HasPrefix(args[i+1], "-") {
				return nil, errors.New("YCSB's -t (transaction phase): docbench spells it `docbench run`; here -t is --target TARGET")
			}
			out = append(out, a)
		default:
			out = append(out, a)
		}
	}
	return out, nil
}
