package workload

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Script is one file of statement.file (pgbench's -f FILE@WEIGHT): SQL
// statements run as one transaction, drawn with a chance proportional to
// Weight among the files, and reported as its own operation.
type Script struct {
	File       string   // the file as given
	Name       string   // STATEMENT-NAME: the file's base name without extension, upper-cased
	Weight     int      // the relative weight after @ (default 1)
	Statements []string // the statements, in order, without the script's own BEGIN and COMMIT
}

// scripts reads statement.file: a comma-separated list of FILE[@WEIGHT].
func (c *configParser) scripts(d *DocOps, v string) {
	src := c.p.Source("statement.file")
	names := map[string]string{}
	given := 0
	for _, spec := range strings.Split(v, ",") {
		if spec = strings.TrimSpace(spec); spec == "" {
			continue
		}
		given++
		s, err := ReadScript(spec, src)
		if err != nil {
			c.errs = append(c.errs, fmt.Errorf("%s: %w", src, err))
			continue
		}
		if other, ok := names[s.Name]; ok {
			c.errs = append(c.errs, fmt.Errorf("%s: statement.file: %s and %s are both reported as %s: rename one", src, other, s.File, s.Name))
			continue
		}
		names[s.Name] = s.File
		d.Scripts = append(d.Scripts, s)
	}
	if given == 0 {
		c.fail("statement.file", "no file named (FILE@WEIGHT, comma-separated)")
	}
	if d.StatementSQL != "" && len(d.Scripts) > 0 {
		c.fail("statement.file", "give statement.sql or statement.file, not both")
	}
}

// ReadScript reads one FILE[@WEIGHT] of statement.file; source is where the
// property was set (a relative FILE is beside the workload file that sets
// it, as querymix's). As in pgbench, the weight follows the last @.
func ReadScript(spec, source string) (Script, error) {
	s := Script{File: spec, Weight: 1}
	if i := strings.LastIndexByte(spec, '@'); i >= 0 {
		s.File = spec[:i]
		w, err := strconv.Atoi(spec[i+1:])
		if err != nil || w < 1 {
			return s, fmt.Errorf("statement.file=%s: weight %q: want a whole number of at least 1 (FILE@WEIGHT)", spec, spec[i+1:])
		}
		s.Weight = w
	}
	if s.File == "" {
		return s, fmt.Errorf("statement.file=%s: no file named (FILE@WEIGHT)", spec)
	}
	text, err := os.ReadFile(mixPath(s.File, source))
	if err != nil {
		return s, fmt.Errorf("statement.file=%s: cannot read: %v", s.File, errors.Unwrap(err))
	}
	base := filepath.Base(s.File)
	s.Name = "STATEMENT-" + strings.ToUpper(strings.TrimSuffix(base, filepath.Ext(base)))
	if s.Statements, err = splitScript(string(text)); err != nil {
		return s, fmt.Errorf("statement.file=%s: %w", s.File, err)
	}
	return s, nil
}

// splitScript splits SQL at the semicolons outside quotes, comments and
// dollar quotes, and drops a BEGIN (START TRANSACTION) that opens it and
// the COMMIT (END) that closes it: docbench runs the script as one
// transaction itself.
func splitScript(text string) ([]string, error) {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '\'' || c == '"' || c == '`':
			i = skipQuoted(text, i, c)
		case c == '-' && strings.HasPrefix(text[i:], "--"):
			i = skipUntil(text, i+2, "\n")
		case c == '/' && strings.HasPrefix(text[i:], "/*"):
			i = skipUntil(text, i+2, "*/")
		case c == '$':
			if tag := dollarTag(text[i:]); tag != "" {
				i = skipUntil(text, i+len(tag), tag)
			}
		case c == '\\' && strings.TrimSpace(text[start:i]) == "":
			line, _, _ := strings.Cut(text[i:], "\n")
			return nil, fmt.Errorf("line %d: %s: pgbench's meta-commands are not supported; statement.params draws the parameters", 1+strings.Count(text[:i], "\n"), strings.TrimSpace(line))
		case c == ';':
			out = appendStatement(out, text[start:i])
			start = i + 1
		}
	}
	out = appendStatement(out, text[start:])
	if len(out) > 0 && isBegin(out[0]) {
		out = out[1:]
		if len(out) == 0 || !isCommit(out[len(out)-1]) {
			return nil, errors.New("BEGIN without a COMMIT (or END) closing the script")
		}
		out = out[:len(out)-1]
	}
	for _, st := range out {
		if isBegin(st) || isCommit(st) {
			return nil, fmt.Errorf("%q: a script is one transaction: BEGIN may only open it and COMMIT close it", st)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no SQL statement in the file")
	}
	return out, nil
}

// appendStatement appends st unless it is only blanks and comments.
func appendStatement(out []string, st string) []string {
	st = strings.TrimSpace(st)
	rest := st
	for rest != "" {
		switch {
		case strings.HasPrefix(rest, "--"):
			_, rest, _ = strings.Cut(rest, "\n")
		case strings.HasPrefix(rest, "/*"):
			_, rest, _ = strings.Cut(rest, "*/")
		default:
			return append(out, st)
		}
		rest = strings.TrimSpace(rest)
	}
	return out
}

func skipQuoted(text string, i int, q byte) int {
	for j := i + 1; j < len(text); j++ {
		if text[j] == q {
			if j+1 < len(text) && text[j+1] == q { // doubled: the quote itself
				j++
				continue
			}
			return j
		}
	}
	return len(text)
}

// skipUntil returns the index of the last byte of the first end from
// index from on, or len(text).
func skipUntil(text string, from int, end string) int {
	if from > len(text) {
		return len(text)
	}
	if j := strings.Index(text[from:], end); j >= 0 {
		return from + j + len(end) - 1
	}
	return len(text)
}

// dollarTag returns PostgreSQL's dollar quote ($$, $tag$) that s opens, or "".
func dollarTag(s string) string {
	for j := 1; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '$':
			return s[:j+1]
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || j > 1 && c >= '0' && c <= '9':
		default:
			return ""
		}
	}
	return ""
}

func isBegin(st string) bool {
	f := strings.Fields(strings.ToUpper(st))
	return len(f) >= 1 && f[0] == "BEGIN" || len(f) >= 2 && f[0] == "START" && f[1] == "TRANSACTION"
}

func isCommit(st string) bool {
	f := strings.Fields(strings.ToUpper(st))
	return len(f) >= 1 && (f[0] == "COMMIT" || f[0] == "END")
}
