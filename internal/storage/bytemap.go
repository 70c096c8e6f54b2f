package storage

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// ByteMap is where each byte of one document goes in one stored format,
// built by docbench's own encoder of the format; Total is its size.
type ByteMap struct {
	Format   string    `json:"format"`
	Total    int       `json:"total_bytes"`
	Segments []Segment `json:"segments"`
}

// Segment is a run of bytes of one kind.
type Segment struct {
	Offset int    `json:"offset"`
	Bytes  int    `json:"bytes"`
	Kind   string `json:"kind"`
	// Path is the value's place in the document ($.a.b[2]).
	Path string `json:"path"`
	Note string `json:"note,omitempty"`
}

// Kinds of segments.
const (
	kindVarlena = "varlena header"
	kindHeader  = "container header"
	kindJEntry  = "JEntry"
	kindKey     = "key"
	kindString  = "string"
	kindNumber  = "number"
	kindPadding = "alignment padding"
	kindNode    = "node header"
	kindLength  = "length"
	kindType    = "type byte"
	kindEnd     = "terminator"
	kindScalar  = "scalar"
)

// mapper collects segments at a running offset.
type mapper struct {
	off  int
	segs []Segment
}

func (m *mapper) add(n int, kind, path, note string) {
	if n > 0 {
		m.segs = append(m.segs, Segment{Offset: m.off, Bytes: n, Kind: kind, Path: path, Note: note})
	}
	m.off += n
}

// node is a parsed JSON value keeping what each format needs: a string's
// text as written (SQLite keeps escapes) and unescaped, a number's text.
type node struct {
	kind    byte   // '{', '[', '"', '0' (number), 't', 'f', 'n'
	raw     string // string: between the quotes, as written; number: as written
	str     string // string: unescaped
	escaped bool   // string: raw holds a backslash escape
	keys    []*node
	elems   []*node // object: the members' values; array: the elements
}

// parse parses one JSON value (already valid: json.Valid).
func parse(doc []byte) (*node, error) {
	p := &parser{b: doc}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	return n, nil
}

type parser struct {
	b []byte
	i int
}

func (p *parser) ws() {
	for p.i < len(p.b) && strings.IndexByte(" \t\r\n", p.b[p.i]) >= 0 {
		p.i++
	}
}

func (p *parser) value() (*node, error) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, fmt.Errorf("unexpected end of JSON")
	}
	switch c := p.b[p.i]; c {
	case '{', '[':
		return p.container(c)
	case '"':
		return p.str()
	case 't', 'f', 'n':
		p.i += map[byte]int{'t': 4, 'f': 5, 'n': 4}[c]
		return &node{kind: c}, nil
	}
	start := p.i
	for p.i < len(p.b) && strings.IndexByte("+-0123456789.eE", p.b[p.i]) >= 0 {
		p.i++
	}
	return &node{kind: '0', raw: string(p.b[start:p.i])}, nil
}

func (p *parser) container(open byte) (*node, error) {
	n := &node{kind: open}
	p.i++
	for {
		p.ws()
		if c := p.b[p.i]; c == '}' || c == ']' {
			p.i++
			return n, nil
		} else if c == ',' {
			p.i++
			continue
		}
		if open == '{' {
			k, err := p.str()
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, k)
			p.ws()
			p.i++ // ':'
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.elems = append(n.elems, v)
	}
}

func (p *parser) str() (*node, error) {
	p.ws()
	start := p.i
	p.i++
	esc := false
	for p.b[p.i] != '"' {
		if p.b[p.i] == '\\' {
			esc = true
			p.i++
		}
		p.i++
	}
	p.i++
	n := &node{kind: '"', raw: string(p.b[start+1 : p.i-1]), escaped: esc}
	n.str = n.raw
	if esc {
		if err := json.Unmarshal(p.b[start:p.i], &n.str); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// childPath is the path of a member or element.
func childPath(path string, n *node, i int) string {
	if n.kind == '[' {
		return path + "[" + strconv.Itoa(i) + "]"
	}
	k := n.keys[i].str
	if k != "" && strings.IndexFunc(k, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return path + "." + k
	}
	return path + "[" + strconv.Quote(k) + "]"
}
