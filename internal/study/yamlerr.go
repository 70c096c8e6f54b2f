package study

import (
	"fmt"
	"regexp"
	"strconv"
)

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// yamlSyntax says where a study file is not YAML as FILE:LINE: message.
// The YAML parser reports a flow collection left open ("did not find
// expected ',' or '}'") at the line before the one where it opened (its
// context mark counts from 0): this names the line of the opening bracket.
func yamlSyntax(source string, err error) error {
	m := yamlLine.FindStringSubmatch(err.Error())
	if m == nil {
		return fmt.Errorf("%s: %v", source, err)
	}
	line, _ := strconv.Atoi(m[1])
	msg := m[2]
	if len(msg) > 20 && msg[:20] == "did not find expecte" {
		line++
		msg += " (a { or [ opened on this line is not closed)"
	}
	return fmt.Errorf("%s:%d: %s", source, line, msg)
}
