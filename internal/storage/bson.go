package storage

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// BSON (bsonspec.org) of a JSON document as the MongoDB adapter and the
// driver's relaxed Extended JSON make it: a document is its int32 length,
// its elements (a type byte, the key as a 0-terminated string, the value)
// and a 0 byte, fields in the document's order, repeated keys too; an
// array is a document keyed "0", "1", …; a string its int32 length, bytes
// and a 0 byte; an integer an int32 when it fits, else an int64, else a
// double, like any other number; true and false one byte, null none.

// BSONMap is the byte map of doc, a JSON object, in BSON.
func BSONMap(doc []byte) (*ByteMap, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	if root.kind != '{' {
		return nil, fmt.Errorf("BSON stores documents (JSON objects), not %q", root.kind)
	}
	m := &mapper{}
	bsonDoc(m, root, "$")
	return &ByteMap{Format: "BSON", Total: m.off, Segments: m.segs}, nil
}

// bsonDoc maps a document or array: length, elements, terminator.
func bsonDoc(m *mapper, n *node, path string) {
	m.add(4, kindLength, path, "int32 length of the document")
	for i, v := range n.elems {
		p := childPath(path, n, i)
		typ, size, note := bsonValue(v)
		m.add(1, kindType, p, typ)
		key := strconv.Itoa(i)
		if n.kind == '{' {
			key = n.keys[i].str
		}
		m.add(len(key)+1, kindKey, p, "0-terminated")
		switch v.kind {
		case '{', '[':
			bsonDoc(m, v, p)
		case '"':
			m.add(4, kindLength, p, "int32 length")
			m.add(len(v.str), kindString, p, "")
			m.add(1, kindEnd, p, "0 byte")
		default:
			m.add(size, kindScalar, p, note)
		}
	}
	m.add(1, kindEnd, path, "0 byte ending the document")
}

// bsonValue is a value's BSON type and, for a scalar, its size.
func bsonValue(n *node) (typ string, size int, note string) {
	switch n.kind {
	case '{':
		return "embedded document", 0, ""
	case '[':
		return "array", 0, ""
	case '"':
		return "string", 0, ""
	case 't', 'f':
		return "boolean", 1, ""
	case 'n':
		return "null", 0, ""
	}
	if !strings.ContainsAny(n.raw, ".eE") {
		if v, err := strconv.ParseInt(n.raw, 10, 64); err == nil {
			if v >= math.MinInt32 && v <= math.MaxInt32 {
				return "int32", 4, "integer " + n.raw
			}
			return "int64", 8, "integer " + n.raw
		}
	}
	return "double", 8, "number " + n.raw
}
