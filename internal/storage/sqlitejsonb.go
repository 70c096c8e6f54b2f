package storage

import (
	"fmt"
	"strings"
)

// SQLite's JSONB format (sqlite.org/jsonb.html): every value is a node, a
// header then its payload. The header's first byte holds the type (low 4
// bits) and the payload size when it is at most 11, else 12, 13 or 14 for
// a size in the next 1, 2 or 4 bytes. Numbers and strings keep their JSON
// text (a string with a backslash escape is TEXTJ, escapes kept); arrays
// and objects hold their nodes, objects key then value, in the document's
// order, repeated keys too.

// sqliteTypes names the node types by their JSON value's kind.
var sqliteTypes = map[byte]string{'n': "NULL", 't': "TRUE", 'f': "FALSE", '[': "ARRAY", '{': "OBJECT"}

// SQLiteJSONBMap is the byte map of doc in SQLite's JSONB.
func SQLiteJSONBMap(doc []byte) (*ByteMap, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	m := &mapper{}
	sqliteNode(m, root, "$", false)
	return &ByteMap{Format: "SQLite JSONB", Total: m.off, Segments: m.segs}, nil
}

// sqliteNode maps one node; key says it is an object's key.
func sqliteNode(m *mapper, n *node, path string, key bool) {
	typ, payload := sqliteTypes[n.kind], 0
	switch n.kind {
	case '"':
		typ, payload = "TEXT", len(n.raw)
		if n.escaped {
			typ = "TEXTJ"
		}
	case '0':
		typ, payload = "INT", len(n.raw)
		if strings.ContainsAny(n.raw, ".eE") {
			typ = "FLOAT"
		}
	case '{', '[':
		payload = sqlitePayload(n)
	}
	m.add(sqliteHeader(payload), kindNode, path, fmt.Sprintf("%s, payload %d bytes", typ, payload))
	switch n.kind {
	case '"':
		kind := kindString
		if key {
			kind = kindKey
		}
		m.add(payload, kind, path, "as written")
	case '0':
		m.add(payload, kindNumber, path, "its JSON text")
	case '{', '[':
		for i, v := range n.elems {
			p := childPath(path, n, i)
			if n.kind == '{' {
				sqliteNode(m, n.keys[i], p, true)
			}
			sqliteNode(m, v, p, false)
		}
	}
}

// sqlitePayload is the size of a container's nodes.
func sqlitePayload(n *node) int {
	size := 0
	for i, v := range n.elems {
		if n.kind == '{' {
			size += sqliteSize(n.keys[i])
		}
		size += sqliteSize(v)
	}
	return size
}

// sqliteSize is a node's size, header included.
func sqliteSize(n *node) int {
	p := 0
	switch n.kind {
	case '"', '0':
		p = len(n.raw)
	case '{', '[':
		p = sqlitePayload(n)
	}
	return sqliteHeader(p) + p
}

// sqliteHeader is the header size of a payload of n bytes.
func sqliteHeader(n int) int {
	switch {
	case n <= 11:
		return 1
	case n <= 0xff:
		return 2
	case n <= 0xffff:
		return 3
	}
	return 5
}
