package storage

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// PostgreSQL's jsonb binary format (src/include/utils/jsonb.h,
// src/backend/utils/adt/jsonb_util.c): a varlena header, then the root
// container: a 4-byte header (count and type), one 4-byte JEntry per key
// and value (every JBOffsetStride-th holding an end offset, the others a
// length), the keys (sorted by length, then bytes; a repeated key keeps
// its last value), then the values. Numerics and containers start at a
// multiple of 4 bytes from the datum's start, padded with zeros.
const (
	jbOffsetStride = 32
	jbHeader       = 4
	jbJEntry       = 4
	varlenaHeader  = 4
)

// JSONBMap is the byte map of doc in jsonb, as a value made in memory (a
// 4-byte varlena header; stored in a row, a value of at most 127 bytes has
// a 1-byte header instead).
func JSONBMap(doc []byte) (*ByteMap, error) {
	root, err := parse(doc)
	if err != nil {
		return nil, err
	}
	m := &mapper{}
	m.add(varlenaHeader, kindVarlena, "$", "4-byte length word (1 byte in a row when the value is at most 130 bytes)")
	if root.kind != '{' && root.kind != '[' {
		// A scalar is stored as a one-element "raw scalar" array.
		root = &node{kind: '[', elems: []*node{root}}
	}
	jsonbValue(m, root, "$")
	return &ByteMap{Format: "jsonb", Total: m.off, Segments: m.segs}, nil
}

// jsonbValue maps one value's data and returns its JEntry length (with
// the padding before it).
func jsonbValue(m *mapper, n *node, path string) int {
	start := m.off
	switch n.kind {
	case '"':
		m.add(len(n.str), kindString, path, "")
	case '0':
		pad(m, path)
		size, note := numericSize(n.raw)
		m.add(size, kindNumber, path, note)
	case 't', 'f', 'n':
		// true, false and null are their JEntry's type alone.
	case '{', '[':
		jsonbContainer(m, n, path)
	}
	return m.off - start
}

// pad aligns the next value to 4 bytes from the datum's start.
func pad(m *mapper, path string) {
	if r := m.off % 4; r != 0 {
		m.add(4-r, kindPadding, path, "to a 4-byte boundary")
	}
}

// jsonbContainer maps an object or array: header, JEntries, keys, values.
func jsonbContainer(m *mapper, n *node, path string) {
	pad(m, path)
	order := make([]int, len(n.elems))
	for i := range order {
		order[i] = i
	}
	if n.kind == '{' {
		order = sortedKeys(n)
		m.add(jbHeader, kindHeader, path, fmt.Sprintf("object of %d pairs", len(order)))
	} else {
		m.add(jbHeader, kindHeader, path, fmt.Sprintf("array of %d elements", len(order)))
	}
	entries := len(order)
	if n.kind == '{' {
		entries *= 2
	}
	for i := range entries {
		what := "length"
		if i%jbOffsetStride == 0 {
			what = "end offset (every 32nd entry)"
		}
		m.add(jbJEntry, kindJEntry, path, fmt.Sprintf("entry %d: type and %s", i, what))
	}
	if n.kind == '{' {
		for _, i := range order {
			m.add(len(n.keys[i].str), kindKey, childPath(path, n, i), "")
		}
	}
	for _, i := range order {
		jsonbValue(m, n.elems[i], childPath(path, n, i))
	}
}

// sortedKeys orders an object's members as jsonb stores them: by key
// length, then bytes; of a repeated key only the last member.
func sortedKeys(n *node) []int {
	order := make([]int, len(n.keys))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ka, kb := n.keys[a].str, n.keys[b].str
		if c := cmp.Compare(len(ka), len(kb)); c != 0 {
			return c
		}
		if c := strings.Compare(ka, kb); c != 0 {
			return c
		}
		return cmp.Compare(b, a) // the last first
	})
	return slices.CompactFunc(order, func(a, b int) bool { return n.keys[a].str == n.keys[b].str })
}

// numericSize is the size of PostgreSQL's numeric of a JSON number, as
// numeric_in makes it: a 4-byte varlena header, a 2-byte header (short
// form: weight in -64..63, display scale up to 63) or a 4-byte one, and a
// 2-byte digit for every base-10000 digit between the first and the last
// that are not zero.
func numericSize(text string) (int, string) {
	t := strings.TrimLeft(text, "+-")
	mant, expText, _ := strings.Cut(strings.ToLower(t), "e")
	exp := 0
	if expText != "" {
		fmt.Sscan(expText, &exp)
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	dscale := max(len(frac)-exp, 0)
	digits := intPart + frac
	// Digit k is worth 10^(len(intPart)-1-k+exp); its base-10000 group is
	// that exponent divided by 4, rounded down.
	hi, lo, any := 0, 0, false
	for k := range len(digits) {
		if digits[k] == '0' {
			continue
		}
		g := floorDiv(len(intPart)-1-k+exp, 4)
		if !any {
			hi, any = g, true
		}
		lo = g
	}
	ndigits, weight := 0, 0
	if any {
		ndigits, weight = hi-lo+1, hi
	}
	header := 2
	if dscale > 63 || weight > 63 || weight < -64 {
		header = 4
	}
	return varlenaHeader + header + 2*ndigits, fmt.Sprintf("numeric: 4-byte length, %d-byte header, %d base-10000 digits", header, ndigits)
}

// floorDiv divides rounding towards minus infinity.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
