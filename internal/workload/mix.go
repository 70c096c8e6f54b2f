package workload

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Mix is a query mix (querymix=FILE.yaml): a service's queries, named once,
// each reported as an operation of its own (QUERY-NAME, UPDATE-NAME) and
// translated for every backend.
//
//	queries:
//	  - {name: by-email, kind: field, path: contact.email, proportion: 0.4}
//	  - {name: tagged, kind: contains, path: tags.term, value: x, proportion: 0.2}
//	  - {name: recent, kind: range, path: created, limit: 20, proportion: 0.2}
//	  - {name: per-group, kind: aggregate, path: group, func: avg, aggpath: total, proportion: 0.1}
//	  - {name: email-only, kind: field, path: contact.email, fields: [name, contact.email], proportion: 0.05}
//	  - {name: set-status, kind: update, path: status, proportion: 0.05}
//
// Proportions are shares of all operations, as readproportion's: they add
// to the workload's and are normalized with them.
type Mix struct {
	File    string
	Queries []MixQuery
}

// MixQuery is one named query of a mix. Its members are those of the
// query.* properties: without value, the values are drawn from the
// documents, as querykind's are.
type MixQuery struct {
	Name       string
	Kind       string // field, contains, array, range, aggregate, descendant or update
	Path       string
	Value      string // JSON, or text as a string; "" draws values from the documents (update: fresh values of the path's type)
	Form       string // contains: path or document
	Limit      int    // the most documents a call returns (0: every match; range: 10 unless limit: says)
	Offset     int    // documents skipped
	LimitGiven bool   // limit: is in the entry
	Func       string // aggregate: avg, sum or count
	AggPath    string
	Fields     []string // a projection: only these paths are returned
	Proportion float64
	Source     string // FILE:LINE of its entry
}

// MixKinds are the kinds a mix entry may have: the query kinds and update.
var MixKinds = []string{"field", "contains", "array", "range", "aggregate", "descendant", "update"}

var mixName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

// ReadMix reads and checks a query mix file. An error is one line,
// FILE:LINE: what is wrong.
func ReadMix(path string) (*Mix, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("querymix=%s: cannot read: %v", path, errors.Unwrap(err))
	}
	return ParseMix(path, data)
}

// ParseMix parses a query mix; source names it in errors.
func ParseMix(source string, data []byte) (*Mix, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		msg := strings.TrimPrefix(err.Error(), "yaml: ")
		if l, rest, ok := strings.Cut(strings.TrimPrefix(msg, "line "), ": "); ok && strings.HasPrefix(msg, "line ") {
			n, _ := strconv.Atoi(l)
			if strings.HasPrefix(rest, "did not find expected ','") {
				// The parser names the line before the one where an
				// unclosed { or [ opened (as study files' errors say).
				n++
				rest += " (a { or [ opened here is not closed)"
			}
			return nil, fmt.Errorf("%s:%d: %s", source, n, rest)
		}
		return nil, fmt.Errorf("%s: %s", source, msg)
	}
	at := func(n *yaml.Node) string { return fmt.Sprintf("%s:%d", source, n.Line) }
	if len(doc.Content) == 0 {
		return nil, fmt.Errorf("%s: empty: want queries: a list of {name, kind, path, proportion, …}", source)
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: want a mapping with queries: a list", at(root))
	}
	m := &Mix{File: source}
	var list *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if k := root.Content[i]; k.Value != "queries" {
			return nil, fmt.Errorf("%s: unknown key %q (want queries)", at(k), k.Value)
		}
		list = root.Content[i+1]
	}
	if list == nil || list.Kind != yaml.SequenceNode || len(list.Content) == 0 {
		return nil, fmt.Errorf("%s: queries: want a list of at least one query", at(root))
	}
	seen := map[string]string{}
	for _, e := range list.Content {
		q, err := parseMixQuery(e, at)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[q.Name]; dup {
			return nil, fmt.Errorf("%s: name %s is taken (%s)", q.Source, q.Name, prev)
		}
		seen[q.Name] = q.Source
		m.Queries = append(m.Queries, q)
	}
	return m, nil
}

func parseMixQuery(e *yaml.Node, at func(*yaml.Node) string) (MixQuery, error) {
	q := MixQuery{Source: at(e), Func: "avg", Form: QueryFormPath}
	if e.Kind != yaml.MappingNode {
		return q, fmt.Errorf("%s: a query is a mapping {name, kind, path, proportion, …}", at(e))
	}
	set := map[string]*yaml.Node{}
	for i := 0; i+1 < len(e.Content); i += 2 {
		k, v := e.Content[i], e.Content[i+1]
		if _, dup := set[k.Value]; dup {
			return q, fmt.Errorf("%s: %s is given twice", at(k), k.Value)
		}
		set[k.Value] = v
		scalar := func() (string, error) {
			if v.Kind != yaml.ScalarNode {
				return "", fmt.Errorf("%s: %s: want a single value", at(v), k.Value)
			}
			return v.Value, nil
		}
		whole := func() (int, error) {
			s, err := scalar()
			if err != nil {
				return 0, err
			}
			n, err := strconv.Atoi(s)
			if err != nil || n < 0 {
				return 0, fmt.Errorf("%s: %s: want a whole number, zero or more, not %q", at(v), k.Value, s)
			}
			return n, nil
		}
		var err error
		switch k.Value {
		case "name":
			if q.Name, err = scalar(); err == nil && !mixName.MatchString(q.Name) {
				err = fmt.Errorf("%s: name %q: want letters, digits, - _ or . (it names the operation QUERY-NAME)", at(v), q.Name)
			}
		case "kind":
			if q.Kind, err = scalar(); err == nil && !contains(MixKinds, q.Kind) {
				err = fmt.Errorf("%s: kind %q: want %s", at(v), q.Kind, strings.Join(MixKinds, ", "))
			}
		case "path":
			q.Path, err = scalar()
		case "aggpath":
			q.AggPath, err = scalar()
		case "func":
			if q.Func, err = scalar(); err == nil && !contains([]string{"avg", "sum", "count"}, q.Func) {
				err = fmt.Errorf("%s: func %q: want avg, sum or count", at(v), q.Func)
			}
		case "form":
			if q.Form, err = scalar(); err == nil && q.Form != QueryFormPath && q.Form != QueryFormDocument {
				err = fmt.Errorf("%s: form %q: want path or document", at(v), q.Form)
			}
		case "limit":
			q.Limit, err = whole()
		case "offset":
			q.Offset, err = whole()
		case "value":
			q.Value, err = mixValue(v)
			if err != nil {
				err = fmt.Errorf("%s: value: %v", at(v), err)
			}
		case "fields":
			if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
				err = fmt.Errorf("%s: fields: want a list of paths, e.g. [name, address.city]", at(v))
				break
			}
			for _, f := range v.Content {
				if f.Kind != yaml.ScalarNode || f.Value == "" {
					err = fmt.Errorf("%s: fields: want a list of paths, e.g. [name, address.city]", at(f))
					break
				}
				q.Fields = append(q.Fields, f.Value)
			}
		case "proportion":
			var s string
			if s, err = scalar(); err == nil {
				q.Proportion, err = strconv.ParseFloat(s, 64)
				if err != nil || !(q.Proportion > 0 && q.Proportion <= 1) {
					err = fmt.Errorf("%s: proportion %q: want a number more than 0 and at most 1", at(v), s)
				}
			}
		default:
			err = fmt.Errorf("%s: unknown key %q (want name, kind, path, value, form, limit, offset, func, aggpath, fields, proportion)", at(k), k.Value)
		}
		if err != nil {
			return q, err
		}
	}
	for _, req := range []string{"name", "kind", "path", "proportion"} {
		if set[req] == nil {
			return q, fmt.Errorf("%s: the query has no %s", q.Source, req)
		}
	}
	where := func(key string) string { return at(set[key]) }
	switch {
	case set["value"] != nil && (q.Kind == "range" || q.Kind == "aggregate"):
		return q, fmt.Errorf("%s: kind %s takes no value", where("value"), q.Kind)
	case set["limit"] != nil && (q.Kind == "aggregate" || q.Kind == "update"):
		return q, fmt.Errorf("%s: limit pages the documents a query returns; kind %s returns %s", where("limit"), q.Kind, mixReturns[q.Kind])
	case set["offset"] != nil && (q.Kind == "aggregate" || q.Kind == "update"):
		return q, fmt.Errorf("%s: offset pages the documents a query returns; kind %s returns %s", where("offset"), q.Kind, mixReturns[q.Kind])
	case (set["func"] != nil || set["aggpath"] != nil) && q.Kind != "aggregate":
		return q, fmt.Errorf("%s: func and aggpath are an aggregate's; kind is %s", q.Source, q.Kind)
	case q.Kind == "aggregate" && q.Func != "count" && q.AggPath == "":
		return q, fmt.Errorf("%s: an aggregate with func %s needs aggpath, the path to aggregate", q.Source, q.Func)
	case set["fields"] != nil && (q.Kind == "aggregate" || q.Kind == "update"):
		return q, fmt.Errorf("%s: fields project the documents a query returns; kind %s returns none", where("fields"), q.Kind)
	case set["form"] != nil && q.Kind != "contains":
		return q, fmt.Errorf("%s: form is a contains query's; kind is %s", where("form"), q.Kind)
	}
	q.LimitGiven = set["limit"] != nil
	if !q.LimitGiven && q.Kind == "range" {
		q.Limit = RangeLimit
	}
	return q, nil
}

// RangeLimit is the page a range query returns unless a limit is given;
// the other kinds return every match unless one is.
const RangeLimit = 10

// mixReturns is what the kinds without documents to page return.
var mixReturns = map[string]string{"aggregate": "one row per group, all of them", "update": "nothing: it sets one document"}

// mixValue is a value as query.value takes it: a scalar's text (JSON, or
// text taken as a string), or a list or mapping as JSON.
func mixValue(v *yaml.Node) (string, error) {
	if v.Kind == yaml.ScalarNode {
		return v.Value, nil
	}
	var x any
	if err := v.Decode(&x); err != nil {
		return "", err
	}
	b, err := json.Marshal(x)
	return string(b), err
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// mixPath is where the file querymix names is: as given when absolute or
// when the property comes from the command line; else beside the workload
// or study file that sets it ("path:line", "path: …").
func mixPath(file, source string) string {
	if filepath.IsAbs(file) {
		return file
	}
	src, _, _ := strings.Cut(source, ": ")
	if i := strings.LastIndexByte(src, ':'); i > 0 {
		if _, err := strconv.Atoi(src[i+1:]); err == nil {
			src = src[:i]
		}
	}
	if st, err := os.Stat(src); err == nil && !st.IsDir() {
		return filepath.Join(filepath.Dir(src), file)
	}
	return file
}
