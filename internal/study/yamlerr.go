package study

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// positions writes the one location format of study file errors,
// FILE:LINE:COL.
type positions struct {
	source string
	lines  []string
}

func newPositions(source string, data []byte) positions {
	return positions{source: source, lines: strings.Split(string(data), "\n")}
}

// at is the position of line and col; col 0 is the column of the line's
// first token (after indentation and a list's "- ").
func (p positions) at(line, col int) string {
	if col == 0 {
		col = 1
		if line >= 1 && line <= len(p.lines) {
			l := p.lines[line-1]
			col = len(l) - len(strings.TrimLeft(l, " \t-")) + 1
		}
	}
	return fmt.Sprintf("%s:%d:%d", p.source, line, col)
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntax says where a study file is not YAML. The YAML parser reports a
// flow collection left open ("did not find expected ',' or '}'") at the
// line before the one where it opened (its context mark counts from 0):
// this names the line of the opening bracket.
func (p positions) syntax(err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %v", p.source, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	col := 0
	if strings.HasPrefix(msg, "did not find expected") {
		line++
		msg += " (a { or [ opened here is not closed)"
		if line >= 1 && line <= len(p.lines) {
			col = strings.LastIndexAny(p.lines[line-1], "{[") + 1
		}
	}
	return fmt.Errorf("%s: %s", p.at(line, col), msg)
}

var typeErrorLine = regexp.MustCompile("^line (\\d+): (?:cannot unmarshal !!(\\w+)(?: `(.*)`)? into (.+)|(.*))$")

// typeError turns one of the YAML decoder's type errors ("line 3: cannot
// unmarshal !!str `many` into int") into the study's words, at the value's
// line and column: `s.yaml:3:9: rounds: want a whole number, not "many"`.
func (p positions) typeError(root *yaml.Node, msg string) string {
	m := typeErrorLine.FindStringSubmatch(msg)
	if m == nil {
		return p.source + ": " + msg
	}
	line, _ := strconv.Atoi(m[1])
	if m[5] != "" { // a message of docbench's own (Duration)
		return p.at(line, 0) + ": " + m[5]
	}
	tag, value, goType := m[2], m[3], m[4]
	key, col := findValue(root, line, tag, value)
	got := map[string]string{"seq": "a list", "map": "a mapping"}[tag]
	if got == "" {
		got = strconv.Quote(value)
	}
	if key != "" {
		key += ": "
	}
	return fmt.Sprintf("%s: %swant %s, not %s", p.at(line, col), key, kindOf(goType), got)
}

// kindOf names a Go type as a study file's author knows it.
func kindOf(goType string) string {
	switch {
	case strings.HasPrefix(goType, "int"), strings.HasPrefix(goType, "uint"):
		return "a whole number"
	case strings.HasPrefix(goType, "float"):
		return "a number"
	case goType == "bool":
		return "true or false"
	case goType == "string":
		return "a single value"
	case strings.HasPrefix(goType, "[]"):
		return "a list"
	case goType == "duration":
		return "a duration (like 10s or 1m30s)"
	}
	return "a mapping (key: value)"
}

// findValue finds the value node at line (with value, or of the kind tag
// names) and returns the key it belongs to and its column. Of several, the
// last: the decoder complains of the innermost.
func findValue(root *yaml.Node, line int, tag, value string) (key string, col int) {
	kind := map[string]yaml.Kind{"seq": yaml.SequenceNode, "map": yaml.MappingNode}[tag]
	var walk func(n *yaml.Node, k string)
	walk = func(n *yaml.Node, k string) {
		if n.Line == line && k != "" && (kind == 0 && n.Kind == yaml.ScalarNode && n.Value == value || kind != 0 && n.Kind == kind) {
			key, col = k, n.Column
		}
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value)
			}
			return
		}
		for _, c := range n.Content {
			walk(c, k)
		}
	}
	walk(root, "")
	return key, col
}
