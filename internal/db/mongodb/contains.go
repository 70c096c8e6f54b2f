package mongodb

import (
	"errors"
	"strconv"
)

// Containment (querykind=contains) in MongoDB terms. A document contains a
// JSON fragment at a path when
//   - an object fragment: it contains each member at path.member (dotted
//     equality, so an index on the dotted path serves it);
//   - an array fragment: the array at path has, for each element, a
//     matching element: {path: {$elemMatch: …}} for an object element,
//     {path: element} for any other (equality on an array matches its
//     elements);
//   - any other value: {path: value}.
// Several conditions are joined with $and; an empty object matches all.

// containsFilter appends the filter for "the document contains the JSON
// fragment value at path" (path "" is the document itself).
func (s *session) containsFilter(dst []byte, path string, value []byte) ([]byte, error) {
	start, d := docStart(s.doc[:0])
	d, err := appendJSONElement(d, "v", value)
	if err != nil {
		return dst, err
	}
	s.doc = docEnd(d, start)
	typ, _, v, _, err := nextElement(s.doc[4 : len(s.doc)-1])
	if err != nil {
		return dst, err
	}
	if path == "" && typ != bsonDocument {
		return dst, errors.New("contains: a fragment for the whole document must be an object")
	}
	s.path = append(s.path[:0], path...)
	s.base = 0
	return s.filterFor(dst, typ, v)
}

// filterFor appends a filter document matching documents that contain the
// BSON value (typ, v) at the path s.path[s.base:].
func (s *session) filterFor(dst []byte, typ byte, v []byte) ([]byte, error) {
	start, d := docStart(dst)
	d = append(d, bsonArray)
	d = appendCString(d, "$and")
	arr, d := docStart(d)
	n := 0
	d, err := s.conditions(d, &n, typ, v)
	if err != nil {
		return dst, err
	}
	d = docEnd(docEnd(d, arr), start)
	switch n {
	case 0: // {}
		empty, d := docStart(d[:start])
		return docEnd(d, empty), nil
	case 1: // the one condition without $and
		_, _, cond, _, err := nextElement(d[arr+4:])
		if err != nil {
			return dst, err
		}
		copy(d[start:], cond)
		return d[:start+len(cond)], nil
	}
	return d, nil
}

// conditions appends to the $and array being built the conditions for
// containing (typ, v) at the current path.
func (s *session) conditions(d []byte, n *int, typ byte, v []byte) ([]byte, error) {
	path := s.path[s.base:]
	switch typ {
	case bsonDocument:
		body, err := docBody(v)
		if err != nil {
			return d, err
		}
		if len(body) == 0 && len(path) > 0 {
			return s.typeCond(d, n, "object"), nil
		}
		for len(body) > 0 {
			t, key, val, rest, err := nextElement(body)
			if err != nil {
				return d, err
			}
			body = rest
			mark := len(s.path)
			if mark > s.base {
				s.path = append(s.path, '.')
			}
			s.path = append(s.path, key...)
			d, err = s.conditions(d, n, t, val)
			s.path = s.path[:mark]
			if err != nil {
				return d, err
			}
		}
		return d, nil
	case bsonArray:
		body, err := docBody(v)
		if err != nil {
			return d, err
		}
		if len(body) == 0 {
			return s.typeCond(d, n, "array"), nil
		}
		for len(body) > 0 {
			t, _, val, rest, err := nextElement(body)
			if err != nil {
				return d, err
			}
			body = rest
			if t != bsonDocument {
				d = s.cond(d, n, t, val)
				continue
			}
			// {path: {$elemMatch: <filter of the element, relative>}}
			c, dd := s.condStart(d, n)
			d = append(dd, bsonDocument)
			d = appendCString(d, s.path[s.base:])
			em, dd := docStart(d)
			d = append(dd, bsonDocument)
			d = appendCString(d, "$elemMatch")
			base := s.base
			s.base = len(s.path)
			d, err = s.filterFor(d, bsonDocument, val)
			s.base = base
			if err != nil {
				return d, err
			}
			d = docEnd(docEnd(d, em), c)
		}
		return d, nil
	}
	return s.cond(d, n, typ, v), nil
}

// condStart opens the next condition document of the $and array.
func (s *session) condStart(d []byte, n *int) (int, []byte) {
	d = append(d, bsonDocument)
	d = strconv.AppendInt(d, int64(*n), 10)
	d = append(d, 0)
	*n++
	return docStart(d)
}

// cond appends the condition {path: value}.
func (s *session) cond(d []byte, n *int, typ byte, v []byte) []byte {
	c, d := s.condStart(d, n)
	d = append(d, typ)
	d = appendCString(d, s.path[s.base:])
	d = append(d, v...)
	return docEnd(d, c)
}

// typeCond appends {path: {$type: alias}}.
func (s *session) typeCond(d []byte, n *int, alias string) []byte {
	c, d := s.condStart(d, n)
	d = append(d, bsonDocument)
	d = appendCString(d, s.path[s.base:])
	t, d := docStart(d)
	d = appendStringElement(d, "$type", alias)
	return docEnd(docEnd(d, t), c)
}
