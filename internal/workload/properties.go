// Package workload implements YCSB's core workload for docbench: workload
// properties (files, -p overrides) and their validation (Config), YCSB 0.17's
// key and value generators with exact semantics, and the per-worker runtime
// that chooses operations, keys, field and scan lengths without allocating.
package workload

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/docbench/docbench/workloads"
)

// Properties is an ordered key/value store of workload properties. Each entry
// remembers where it was set (its source), e.g. "workloads/workloada:21" for a
// file line, "-p" for a command-line override or "--threads" for a flag. A
// later Set of the same key replaces the value and source.
type Properties struct {
	index   map[string]int
	entries []propEntry
}

type propEntry struct {
	key, value, source string
}

// NewProperties returns an empty Properties.
func NewProperties() *Properties {
	return &Properties{index: map[string]int{}}
}

// Set sets key to value, recording source as where it came from.
func (p *Properties) Set(key, value, source string) {
	if i, ok := p.index[key]; ok {
		p.entries[i].value, p.entries[i].source = value, source
		return
	}
	p.index[key] = len(p.entries)
	p.entries = append(p.entries, propEntry{key, value, source})
}

// Get returns the value of key and whether it is set.
func (p *Properties) Get(key string) (value string, ok bool) {
	i, ok := p.index[key]
	if !ok {
		return "", false
	}
	return p.entries[i].value, true
}

// Source returns where key was set, or "" if it is not set.
func (p *Properties) Source(key string) string {
	if i, ok := p.index[key]; ok {
		return p.entries[i].source
	}
	return ""
}

// Keys returns the set keys in sorted order.
func (p *Properties) Keys() []string {
	keys := make([]string, 0, len(p.entries))
	for _, e := range p.entries {
		keys = append(keys, e.key)
	}
	sort.Strings(keys)
	return keys
}

// Len returns the number of keys set.
func (p *Properties) Len() int { return len(p.entries) }

// Map returns a copy of the properties as a map.
func (p *Properties) Map() map[string]string {
	m := make(map[string]string, len(p.entries))
	for _, e := range p.entries {
		m[e.key] = e.value
	}
	return m
}

// Clone returns an independent copy.
func (p *Properties) Clone() *Properties {
	c := NewProperties()
	for _, e := range p.entries {
		c.Set(e.key, e.value, e.source)
	}
	return c
}

// LoadFile loads a workload file. nameOrPath is a path; if no such file
// exists, it may name a built-in workload ("workloada" … "workloadf", also
// accepted as "workloads/workloada" like YCSB's command lines). Each property's
// source is "path:line" (built-ins: "workloads/NAME:line").
func (p *Properties) LoadFile(nameOrPath string) error {
	data, err := os.ReadFile(nameOrPath)
	if err == nil {
		return p.Load(bytes.NewReader(data), nameOrPath)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("workload file %q: %w", nameOrPath, err)
	}
	name := nameOrPath
	if dir, base := filepath.Split(filepath.ToSlash(nameOrPath)); dir == "workloads/" || dir == "./workloads/" {
		name = base
	}
	if b, ok := workloads.Lookup(name); ok {
		return p.Load(bytes.NewReader(b), "workloads/"+name)
	}
	return fmt.Errorf("workload file %q: no such file (built-ins: %s)", nameOrPath, strings.Join(workloads.Names(), ", "))
}

// Load reads properties in Java .properties syntax (the subset YCSB's files
// use) from r; source names the input in sources and errors. Lines starting
// with '#' or '!' are comments; a property is "key=value", "key: value" or
// "key value" with surrounding whitespace trimmed; a line ending in an odd
// number of backslashes continues on the next line; Java's escapes (\t, \n,
// \r, \f, \uXXXX, and \ before any other character) are decoded. A line with
// an empty key, a key without a value or separator, or a bad escape is an
// error naming source:line.
func (p *Properties) Load(r io.Reader, source string) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	lineNo, start := 0, 0
	var logical strings.Builder
	continuing := false
	for sc.Scan() {
		lineNo++
		line := sc.Text()
		if !continuing {
			line = strings.TrimLeft(line, " \t\f")
			if line == "" || line[0] == '#' || line[0] == '!' {
				continue
			}
			start = lineNo
			logical.Reset()
		} else {
			line = strings.TrimLeft(line, " \t\f")
		}
		line = strings.TrimRight(line, "\r")
		if trailingBackslashes(line)%2 == 1 {
			logical.WriteString(line[:len(line)-1])
			continuing = true
			continue
		}
		logical.WriteString(line)
		continuing = false
		if err := p.parseLine(logical.String(), fmt.Sprintf("%s:%d", source, start)); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s:%d: %w", source, lineNo+1, err)
	}
	if continuing {
		// Java accepts a continuation at end of input.
		return p.parseLine(logical.String(), fmt.Sprintf("%s:%d", source, start))
	}
	return nil
}

func isPropSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\f' }

func trailingBackslashes(s string) int {
	n := 0
	for i := len(s) - 1; i >= 0 && s[i] == '\\'; i-- {
		n++
	}
	return n
}

// parseLine splits a logical line into key and value as
// java.util.Properties does and stores it with source loc.
func (p *Properties) parseLine(line, loc string) error {
	keyEnd, valStart := len(line), len(line)
	explicit := false // separated by '=' or ':' rather than whitespace only
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == '\\' {
			i++
			continue
		}
		if c != '=' && c != ':' && !isPropSpace(c) {
			continue
		}
		keyEnd = i
		j := i + 1
		explicit = c == '=' || c == ':'
		for j < len(line) && isPropSpace(line[j]) {
			j++
		}
		if !explicit && j < len(line) && (line[j] == '=' || line[j] == ':') {
			explicit = true
			j++
			for j < len(line) && isPropSpace(line[j]) {
				j++
			}
		}
		valStart = j
		break
	}
	valText := strings.TrimRight(line[valStart:], " \t\f")
	key, err := unescape(line[:keyEnd])
	if err != nil {
		return fmt.Errorf("%s: malformed property key: %w", loc, err)
	}
	if key == "" {
		return fmt.Errorf("%s: malformed line %q: empty property name", loc, line)
	}
	if !explicit && valText == "" {
		return fmt.Errorf("%s: malformed line %q: want key=value", loc, line)
	}
	value, err := unescape(valText)
	if err != nil {
		return fmt.Errorf("%s: malformed value of %q: %w", loc, key, err)
	}
	p.Set(key, value, loc)
	return nil
}

// unescape decodes Java properties escapes.
func unescape(s string) (string, error) {
	if !strings.Contains(s, `\`) {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			break // a lone trailing backslash is dropped, as in Java
		}
		switch c = s[i]; c {
		case 't':
			b.WriteByte('\t')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			v, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("malformed \\uxxxx escape in %q", s)
			}
			b.WriteRune(rune(v))
			i += 4
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// ParseOverride applies a command-line override "key=value" (YCSB's -p), with
// source "-p". The key is trimmed; the value is taken as is.
func (p *Properties) ParseOverride(kv string) error {
	return p.ParseOverrideFrom(kv, "-p")
}

// ParseOverrideFrom is ParseOverride with a given source.
func (p *Properties) ParseOverrideFrom(kv, source string) error {
	key, value, ok := strings.Cut(kv, "=")
	if !ok {
		return fmt.Errorf("%s %q: want key=value", source, kv)
	}
	key = strings.TrimSpace(key)
	if key == "" {
		return fmt.Errorf("%s %q: empty property name", source, kv)
	}
	p.Set(key, value, source)
	return nil
}
