package mongodb

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// This file converts between the JSON the runner speaks and the BSON the
// server stores, without reflection and without allocating: every function
// appends to a caller's buffer (style.md: append-style encoders).
//
// JSON → BSON maps each JSON type to its native BSON type: object →
// embedded document, array → array, string → string, true/false → boolean,
// null → null, an integer → int32 when it fits, else int64, else double,
// any other number → double. BSON → JSON is the inverse; types JSON lacks
// become strings (ObjectId as hex, binary as base64, decimal128 as its
// decimal text, regex as /pattern/options) or numbers (dates as
// milliseconds since the epoch, timestamps as their 64-bit value).

// BSON element types.
const (
	bsonDouble     = 0x01
	bsonString     = 0x02
	bsonDocument   = 0x03
	bsonArray      = 0x04
	bsonBinary     = 0x05
	bsonUndefined  = 0x06
	bsonObjectID   = 0x07
	bsonBool       = 0x08
	bsonDateTime   = 0x09
	bsonNull       = 0x0A
	bsonRegex      = 0x0B
	bsonDBPointer  = 0x0C
	bsonJavaScript = 0x0D
	bsonSymbol     = 0x0E
	bsonCodeScope  = 0x0F
	bsonInt32      = 0x10
	bsonTimestamp  = 0x11
	bsonInt64      = 0x12
	bsonDecimal128 = 0x13
	bsonMinKey     = 0xFF
	bsonMaxKey     = 0x7F
)

// maxDepth bounds the nesting of JSON input (MongoDB allows 100 levels).
const maxDepth = 200

// jsonError is a JSON syntax error at a byte offset.
type jsonError struct {
	msg string
	off int
}

func (e *jsonError) Error() string { return fmt.Sprintf("JSON to BSON: %s at offset %d", e.msg, e.off) }

var errBSON = errors.New("malformed BSON")

// docStart reserves the length of a document (or array) and returns its
// offset in dst.
func docStart(dst []byte) (int, []byte) { return len(dst), append(dst, 0, 0, 0, 0) }

// docEnd terminates the document started at start and writes its length.
func docEnd(dst []byte, start int) []byte {
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst
}

// appendCString appends a key; keys are NUL-terminated, so they cannot
// contain NUL.
func appendCString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendStringElement appends key: "value" (a BSON string).
func appendStringElement[K, V ~string | ~[]byte](dst []byte, key K, val V) []byte {
	dst = append(dst, bsonString)
	dst = appendCString(dst, key)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(val)+1))
	dst = append(dst, val...)
	return append(dst, 0)
}

// appendInt32Element appends key: NumberInt(v).
func appendInt32Element[K ~string | ~[]byte](dst []byte, key K, v int32) []byte {
	dst = append(dst, bsonInt32)
	dst = appendCString(dst, key)
	return binary.LittleEndian.AppendUint32(dst, uint32(v))
}

// appendJSONDocument converts the JSON object src to a BSON document.
func appendJSONDocument(dst, src []byte) ([]byte, error) {
	start, dst := docStart(dst)
	dst, err := appendJSONMembers(dst, src)
	if err != nil {
		return dst, err
	}
	return docEnd(dst, start), nil
}

// appendJSONMembers appends the members of the JSON object src as BSON
// elements, into a document the caller has started (and ends).
func appendJSONMembers(dst, src []byte) ([]byte, error) {
	p := jsonParser{src: src}
	p.ws()
	if p.peek() != '{' {
		return dst, p.fail("want an object")
	}
	dst, err := p.members(dst)
	if err != nil {
		return dst, err
	}
	return dst, p.end()
}

// appendJSONElement appends the JSON value src as the element key.
func appendJSONElement[K ~string | ~[]byte](dst []byte, key K, src []byte) ([]byte, error) {
	p := jsonParser{src: src}
	p.ws()
	t := len(dst)
	dst = append(dst, 0)
	dst = appendCString(dst, key)
	dst, typ, err := p.value(dst)
	if err != nil {
		return dst, err
	}
	dst[t] = typ
	return dst, p.end()
}

// jsonParser is a JSON tokenizer that writes BSON as it reads.
type jsonParser struct {
	src   []byte
	i     int
	depth int
}

func (p *jsonParser) fail(msg string) error { return &jsonError{msg: msg, off: p.i} }

func (p *jsonParser) ws() {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonParser) peek() byte {
	if p.i < len(p.src) {
		return p.src[p.i]
	}
	return 0
}

// end checks that only white space follows the value.
func (p *jsonParser) end() error {
	p.ws()
	if p.i != len(p.src) {
		return p.fail("unexpected data after the value")
	}
	return nil
}

// members reads {…} at p.i and appends its members as elements.
func (p *jsonParser) members(dst []byte) ([]byte, error) { return p.elements(dst, '}') }

// array reads […] at p.i and appends its elements keyed "0", "1", ….
func (p *jsonParser) array(dst []byte) ([]byte, error) { return p.elements(dst, ']') }

// elements reads an object (end '}') or an array (end ']') at p.i and
// appends its members, or its elements keyed by index, as BSON elements.
func (p *jsonParser) elements(dst []byte, end byte) ([]byte, error) {
	if p.depth++; p.depth > maxDepth {
		return dst, p.fail("nested too deeply")
	}
	p.i++ // '{' or '['
	p.ws()
	if p.peek() == end {
		p.i++
		p.depth--
		return dst, nil
	}
	for n := 0; ; n++ {
		p.ws()
		t := len(dst)
		dst = append(dst, 0) // the type, once the value is read
		var err error
		if end == '}' {
			dst, err = p.name(dst)
		} else {
			dst = append(strconv.AppendInt(dst, int64(n), 10), 0)
		}
		if err != nil {
			return dst, err
		}
		var typ byte
		if dst, typ, err = p.value(dst); err != nil {
			return dst, err
		}
		dst[t] = typ
		p.ws()
		switch c := p.peek(); {
		case c == ',':
			p.i++
		case c == end:
			p.i++
			p.depth--
			return dst, nil
		case end == '}':
			return dst, p.fail("want ',' or '}'")
		default:
			return dst, p.fail("want ',' or ']'")
		}
	}
}

// name reads a member name and its ':' at p.i and appends it as an
// element name (NUL-terminated).
func (p *jsonParser) name(dst []byte) ([]byte, error) {
	if p.peek() != '"' {
		return dst, p.fail("want a member name")
	}
	k := len(dst)
	var err error
	if dst, err = p.str(dst); err != nil {
		return dst, err
	}
	for _, c := range dst[k:] {
		if c == 0 {
			return dst, p.fail("member name contains NUL")
		}
	}
	dst = append(dst, 0)
	p.ws()
	if p.peek() != ':' {
		return dst, p.fail("want ':'")
	}
	p.i++
	p.ws()
	return dst, nil
}

// value reads the value at p.i, appends its BSON encoding and returns its
// BSON type.
func (p *jsonParser) value(dst []byte) ([]byte, byte, error) {
	var err error
	switch c := p.peek(); {
	case c == '{':
		start, d := docStart(dst)
		if dst, err = p.members(d); err != nil {
			return dst, 0, err
		}
		return docEnd(dst, start), bsonDocument, nil
	case c == '[':
		start, d := docStart(dst)
		if dst, err = p.array(d); err != nil {
			return dst, 0, err
		}
		return docEnd(dst, start), bsonArray, nil
	case c == '"':
		l := len(dst)
		if dst, err = p.str(append(dst, 0, 0, 0, 0)); err != nil {
			return dst, 0, err
		}
		dst = append(dst, 0)
		binary.LittleEndian.PutUint32(dst[l:], uint32(len(dst)-l-4))
		return dst, bsonString, nil
	case c == 't':
		return p.literal(dst, "true", 1, bsonBool)
	case c == 'f':
		return p.literal(dst, "false", 0, bsonBool)
	case c == 'n':
		return p.literal(dst, "null", -1, bsonNull)
	case c == '-' || c >= '0' && c <= '9':
		return p.number(dst)
	}
	return dst, 0, p.fail("want a value")
}

func (p *jsonParser) literal(dst []byte, word string, b int, typ byte) ([]byte, byte, error) {
	if len(p.src)-p.i < len(word) || string(p.src[p.i:p.i+len(word)]) != word {
		return dst, 0, p.fail("invalid literal")
	}
	p.i += len(word)
	if b >= 0 {
		dst = append(dst, byte(b))
	}
	return dst, typ, nil
}

// number reads a JSON number: int32 when it fits, else int64, else double.
func (p *jsonParser) number(dst []byte) ([]byte, byte, error) {
	start := p.i
	neg := p.peek() == '-'
	if neg {
		p.i++
	}
	digits := p.i
	var u uint64
	overflow := false
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		d := uint64(p.src[p.i] - '0')
		if u > (math.MaxUint64-d)/10 {
			overflow = true
		}
		u = u*10 + d
		p.i++
	}
	if p.i == digits || p.src[digits] == '0' && p.i-digits > 1 {
		return dst, 0, p.fail("invalid number")
	}
	isFloat := false
	if p.peek() == '.' {
		isFloat = true
		p.i++
		if !p.digits() {
			return dst, 0, p.fail("invalid number")
		}
	}
	if c := p.peek(); c == 'e' || c == 'E' {
		isFloat = true
		p.i++
		if c := p.peek(); c == '+' || c == '-' {
			p.i++
		}
		if !p.digits() {
			return dst, 0, p.fail("invalid number")
		}
	}
	if !isFloat && !overflow {
		switch {
		case !neg && u <= math.MaxInt32:
			return binary.LittleEndian.AppendUint32(dst, uint32(u)), bsonInt32, nil
		case neg && u <= -math.MinInt32:
			return binary.LittleEndian.AppendUint32(dst, uint32(-int64(u))), bsonInt32, nil
		case !neg && u <= math.MaxInt64:
			return binary.LittleEndian.AppendUint64(dst, u), bsonInt64, nil
		case neg && u <= 1<<63:
			return binary.LittleEndian.AppendUint64(dst, -u), bsonInt64, nil
		}
	}
	f, err := strconv.ParseFloat(string(p.src[start:p.i]), 64)
	if err != nil && (!errors.Is(err, strconv.ErrRange) || math.IsInf(f, 0)) {
		return dst, 0, p.fail("number out of range") // as encoding/json; underflow to 0 is fine
	}
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(f)), bsonDouble, nil
}

func (p *jsonParser) digits() bool {
	s := p.i
	for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
		p.i++
	}
	return p.i > s
}

// special marks the bytes that end a run of plain string content.
var special = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'] = true, true
	return t
}()

// str reads the JSON string at p.i and appends its UTF-8 bytes, unescaped.
func (p *jsonParser) str(dst []byte) ([]byte, error) {
	p.i++ // '"'
	for {
		run, i, src := p.i, p.i, p.src
		for i < len(src) && !special[src[i]] {
			i++
		}
		p.i = i
		dst = append(dst, src[run:i]...)
		if p.i >= len(p.src) {
			return dst, p.fail("unterminated string")
		}
		switch p.src[p.i] {
		case '"':
			p.i++
			return dst, nil
		case '\\':
			var err error
			if dst, err = p.escape(dst); err != nil {
				return dst, err
			}
		default:
			return dst, p.fail("control character in string")
		}
	}
}

func (p *jsonParser) escape(dst []byte) ([]byte, error) {
	if p.i+1 >= len(p.src) {
		return dst, p.fail("unterminated escape")
	}
	c := p.src[p.i+1]
	p.i += 2
	switch c {
	case '"', '\\', '/':
		return append(dst, c), nil
	case 'b':
		return append(dst, '\b'), nil
	case 'f':
		return append(dst, '\f'), nil
	case 'n':
		return append(dst, '\n'), nil
	case 'r':
		return append(dst, '\r'), nil
	case 't':
		return append(dst, '\t'), nil
	case 'u':
		r, ok := p.hex4()
		if !ok {
			return dst, p.fail("invalid \\u escape")
		}
		if utf16.IsSurrogate(r) {
			r2 := rune(-1)
			if p.i+1 < len(p.src) && p.src[p.i] == '\\' && p.src[p.i+1] == 'u' {
				save := p.i
				p.i += 2
				if r2, ok = p.hex4(); !ok {
					return dst, p.fail("invalid \\u escape")
				}
				if utf16.DecodeRune(r, r2) == utf8.RuneError {
					p.i, r2 = save, -1 // not a pair: read the second escape on its own
				}
			}
			if r2 < 0 {
				r = utf8.RuneError
			} else {
				r = utf16.DecodeRune(r, r2)
			}
		}
		return utf8.AppendRune(dst, r), nil
	}
	return dst, p.fail("invalid escape")
}

func (p *jsonParser) hex4() (rune, bool) {
	if len(p.src)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range p.src[p.i : p.i+4] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		case c >= 'A' && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	p.i += 4
	return r, true
}

// --- BSON → JSON ---

// appendDocJSON converts the BSON document doc to a JSON object, leaving
// out the element named skip (e.g. "_id"; "" keeps all).
func appendDocJSON(dst, doc []byte, skip string) ([]byte, error) {
	return appendElementsJSON(dst, doc, false, skip)
}

// appendElementsJSON writes a document as an object, or an array's
// elements as a JSON array.
func appendElementsJSON(dst, doc []byte, array bool, skip string) ([]byte, error) {
	body, err := docBody(doc)
	if err != nil {
		return dst, err
	}
	open, close := byte('{'), byte('}')
	if array {
		open, close = '[', ']'
	}
	dst = append(dst, open)
	first := true
	for len(body) > 0 {
		typ, key, val, rest, err := nextElement(body)
		if err != nil {
			return dst, err
		}
		body = rest
		if skip != "" && string(key) == skip {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		if !array {
			dst = appendJSONString(dst, key)
			dst = append(dst, ':')
		}
		if dst, err = appendValueJSON(dst, typ, val); err != nil {
			return dst, err
		}
	}
	return append(dst, close), nil
}

// docBody checks a document's framing and returns its elements.
func docBody(doc []byte) ([]byte, error) {
	if len(doc) < 5 {
		return nil, errBSON
	}
	n := int(binary.LittleEndian.Uint32(doc))
	if n < 5 || n > len(doc) || doc[n-1] != 0 {
		return nil, errBSON
	}
	return doc[4 : n-1], nil
}

// nextElement splits the first element off b.
func nextElement(b []byte) (typ byte, key, val, rest []byte, err error) {
	if len(b) < 2 {
		return 0, nil, nil, nil, errBSON
	}
	typ = b[0]
	k := 1
	for k < len(b) && b[k] != 0 {
		k++
	}
	if k >= len(b) {
		return 0, nil, nil, nil, errBSON
	}
	key = b[1:k]
	b = b[k+1:]
	n, err := valueLen(typ, b)
	if err != nil {
		return 0, nil, nil, nil, err
	}
	return typ, key, b[:n], b[n:], nil
}

// valueLen returns the length of the value of type typ at the start of b.
func valueLen(typ byte, b []byte) (int, error) {
	n := 0
	switch typ {
	case bsonDouble, bsonDateTime, bsonInt64, bsonTimestamp:
		n = 8
	case bsonString, bsonJavaScript, bsonSymbol:
		if len(b) < 4 {
			return 0, errBSON
		}
		n = 4 + int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return 0, errBSON
		}
	case bsonDocument, bsonArray, bsonCodeScope:
		if len(b) < 4 {
			return 0, errBSON
		}
		n = int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return 0, errBSON
		}
	case bsonBinary:
		if len(b) < 4 {
			return 0, errBSON
		}
		n = 5 + int(int32(binary.LittleEndian.Uint32(b)))
		if n < 5 {
			return 0, errBSON
		}
	case bsonUndefined, bsonNull, bsonMinKey, bsonMaxKey:
		n = 0
	case bsonObjectID:
		n = 12
	case bsonBool:
		n = 1
	case bsonRegex:
		for c := 0; c < 2; c++ {
			for n < len(b) && b[n] != 0 {
				n++
			}
			n++
		}
	case bsonDBPointer:
		if len(b) < 4 {
			return 0, errBSON
		}
		n = 4 + int(int32(binary.LittleEndian.Uint32(b))) + 12
	case bsonInt32:
		n = 4
	case bsonDecimal128:
		n = 16
	default:
		return 0, fmt.Errorf("%w: unknown element type 0x%02x", errBSON, typ)
	}
	if n > len(b) {
		return 0, errBSON
	}
	return n, nil
}

// appendValueJSON appends one BSON value as JSON.
func appendValueJSON(dst []byte, typ byte, v []byte) ([]byte, error) {
	switch typ {
	case bsonDouble:
		return appendFloat(dst, math.Float64frombits(binary.LittleEndian.Uint64(v))), nil
	case bsonString, bsonJavaScript, bsonSymbol:
		return appendJSONString(dst, v[4:len(v)-1]), nil
	case bsonDocument:
		return appendElementsJSON(dst, v, false, "")
	case bsonArray:
		return appendElementsJSON(dst, v, true, "")
	case bsonBinary:
		dst = append(dst, '"')
		dst = base64.StdEncoding.AppendEncode(dst, v[5:])
		return append(dst, '"'), nil
	case bsonObjectID:
		dst = append(dst, '"')
		dst = hex.AppendEncode(dst, v)
		return append(dst, '"'), nil
	case bsonBool:
		if v[0] != 0 {
			return append(dst, "true"...), nil
		}
		return append(dst, "false"...), nil
	case bsonDateTime, bsonInt64:
		return strconv.AppendInt(dst, int64(binary.LittleEndian.Uint64(v)), 10), nil
	case bsonTimestamp:
		return strconv.AppendUint(dst, binary.LittleEndian.Uint64(v), 10), nil
	case bsonInt32:
		return strconv.AppendInt(dst, int64(int32(binary.LittleEndian.Uint32(v))), 10), nil
	case bsonRegex:
		pat, opts, _ := cut0(v)
		opts, _, _ = cut0(opts)
		dst = append(dst, '"', '/')
		dst = appendJSONStringBody(dst, pat)
		dst = append(dst, '/')
		dst = appendJSONStringBody(dst, opts)
		return append(dst, '"'), nil
	case bsonDecimal128:
		dst = append(dst, '"')
		dst = append(dst, decimal128String(v)...)
		return append(dst, '"'), nil
	}
	return append(dst, "null"...), nil // undefined, null, min/max key, DBPointer, code with scope
}

func cut0(b []byte) (before, after []byte, ok bool) {
	for i, c := range b {
		if c == 0 {
			return b[:i], b[i+1:], true
		}
	}
	return b, nil, false
}

// appendFloat formats f as encoding/json does (NaN and ±Inf, which JSON
// lacks, become null).
func appendFloat(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendJSONString appends s as a quoted JSON string.
func appendJSONString[S ~string | ~[]byte](dst []byte, s S) []byte {
	dst = append(dst, '"')
	dst = appendJSONStringBody(dst, s)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

func appendJSONStringBody[S ~string | ~[]byte](dst []byte, s S) []byte {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		dst = append(dst, s[run:i]...)
		run = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	return append(dst, s[run:]...)
}

// lookup finds the value at the path segs in the BSON document doc
// (descending through embedded documents and arrays).
func lookup(doc []byte, segs []string) (typ byte, val []byte, ok bool) {
	for si, seg := range segs {
		body, err := docBody(doc)
		if err != nil {
			return 0, nil, false
		}
		found := false
		for len(body) > 0 {
			t, key, v, rest, err := nextElement(body)
			if err != nil {
				return 0, nil, false
			}
			body = rest
			if string(key) != seg {
				continue
			}
			if si == len(segs)-1 {
				return t, v, true
			}
			if t != bsonDocument && t != bsonArray {
				return 0, nil, false
			}
			doc, found = v, true
			break
		}
		if !found {
			return 0, nil, false
		}
	}
	return 0, nil, false
}

// decimal128String renders a BSON decimal128 (low 64 bits first).
func decimal128String(v []byte) string {
	return bson.NewDecimal128(binary.LittleEndian.Uint64(v[8:]), binary.LittleEndian.Uint64(v)).String()
}

// binary32 appends n as a little-endian int32.
func binary32(dst []byte, n int) []byte { return binary.LittleEndian.AppendUint32(dst, uint32(n)) }
