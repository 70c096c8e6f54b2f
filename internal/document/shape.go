package document

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Shape generates the documents of one document.* configuration. A document
// is a pure function of (seed, spec, keynum).
type Shape interface {
	// AppendDoc appends the JSON document of keynum (whose key is key) to
	// dst. r is per-worker scratch randomness, reseeded from (seed, keynum).
	// It allocates nothing once dst has grown to the document's size.
	AppendDoc(dst, key []byte, keynum int64, r *Rand) []byte
	// Paths lists the document's addressable paths in document order:
	// every field, nested fields as dotted paths, fields of array elements
	// under the array's path ("tags.term").
	Paths() []PathInfo
	// TopLevel returns the top-level field names in document order.
	TopLevel() []string
	// AppendValue appends a fresh JSON value of the type and shape of the
	// value at path (one element's value for paths inside arrays), drawn
	// from r; null for a path that Paths does not list.
	AppendValue(dst []byte, path string, r *rand.Rand) []byte
}

var (
	_ Shape = (*tree)(nil)
	_ Shape = (*flatShape)(nil)
	_ Shape = (*replayShape)(nil)
)

// JSON types of PathInfo.Type (JSON Schema's names).
const (
	TypeObject  = "object"
	TypeArray   = "array"
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeNull    = "null"
)

// PathInfo describes one addressable path of a shape's documents.
type PathInfo struct {
	Path        string  // dotted path from the top: "address.zip"; fields of array elements continue the array's path: "tags.term"
	Type        string  // JSON type (TypeObject, …; the most frequent one where it varies)
	Format      string  // for strings: "date-time" or "date" (ISO 8601), else ""
	Items       string  // for arrays: the JSON type of the elements
	Depth       int     // 1 for top-level fields
	Leaf        bool    // a scalar (not an object or array)
	Array       bool    // an array
	Object      bool    // an object
	InArray     bool    // inside an array element: one value per element, not per document
	Presence    float64 // fraction of documents (of elements, InArray) that have it; 1 for always
	Nullable    bool    // the value is sometimes null
	Categorical bool    // few distinct values (enumerations, booleans): a group-by key
}

func pathInfo(n *node, path string, depth int, inArray bool, presence float64) PathInfo {
	p := PathInfo{Path: path, Depth: depth, InArray: inArray, Presence: presence, Nullable: n.nullable > 0}
	t := n
	if n.kind == kMixed {
		best := 0
		prev := 0.0
		for i, c := range n.cdf {
			if c-prev > n.cdf[best]-prevOf(n.cdf, best) {
				best = i
			}
			prev = c
			if n.alts[i].kind == kNull {
				p.Nullable = true
			}
		}
		t = n.alts[best]
	}
	p.Type, p.Format = t.jsonType()
	switch p.Type {
	case TypeObject:
		p.Object = true
	case TypeArray:
		p.Array = true
		p.Items, _ = t.item.jsonType()
	default:
		p.Leaf = true
	}
	p.Categorical = t.kind == kBool || t.categorical
	return p
}

func prevOf(cdf []float64, i int) float64 {
	if i == 0 {
		return 0
	}
	return cdf[i-1]
}

// jsonType returns the JSON type and string format of the values of n.
func (n *node) jsonType() (typ, format string) {
	switch n.kind {
	case kObject:
		return TypeObject, ""
	case kArray:
		return TypeArray, ""
	case kText, kWords, kPattern:
		return TypeString, ""
	case kDate:
		if n.format == dateOnly {
			return TypeString, "date"
		}
		return TypeString, "date-time"
	case kInt, kSeq:
		return TypeInteger, ""
	case kMoney:
		return TypeNumber, ""
	case kBool:
		return TypeBoolean, ""
	case kNull:
		return TypeNull, ""
	case kEnum:
		if len(n.vals) == 0 {
			return TypeNull, ""
		}
		return rawType(n.vals[0]), ""
	case kMixed:
		return TypeNull, ""
	}
	return TypeNull, ""
}

// rawType returns the JSON type of an encoded value.
func rawType(v []byte) string {
	if len(v) == 0 {
		return TypeNull
	}
	switch v[0] {
	case '"':
		return TypeString
	case '{':
		return TypeObject
	case '[':
		return TypeArray
	case 't', 'f':
		return TypeBoolean
	case 'n':
		return TypeNull
	}
	for _, c := range v {
		if c == '.' || c == 'e' || c == 'E' {
			return TypeNumber
		}
	}
	return TypeInteger
}

// New returns the generator of spec's documents for seed. It reads
// document.sample and document.replay files.
func New(spec Spec, seed uint64) (Shape, error) {
	if spec.FieldLengths == nil {
		spec.FieldLengths = Dist{Kind: DistConstant, Min: 100, Max: 100}
	}
	if spec.ArrayLength.Kind == "" {
		spec.ArrayLength = Dist{Kind: DistConstant, Min: 10, Max: 10}
	}
	var root *node
	switch spec.Shape {
	case "", ShapeFlat:
		if spec.Arrays == 0 && spec.Size == 0 {
			return newFlatShape(spec, seed), nil
		}
		root = &node{kind: kObject, fields: flatFields(spec)}
	case ShapeComplex:
		root = complexRoot(spec)
	case ShapeBookmarks:
		root = bookmarksRoot()
	case ShapeReviews:
		root = reviewsRoot()
	case ShapeCustomer:
		root = customerRoot()
	case ShapeBlog:
		root = blogRoot()
	case ShapeSample:
		st, _, err := learnFile(spec.Sample, false)
		if err != nil {
			return nil, err
		}
		root = st.node("")
	case ShapeReplay:
		return newReplayShape(spec, seed)
	default:
		return nil, fmt.Errorf("document.shape=%q: unknown shape", spec.Shape)
	}
	if spec.Shape == ShapeFlat || spec.Shape == ShapeComplex {
		root.fields = append(root.fields, arrayFields(spec)...)
	}
	t := newTree(spec.Shape, root, seed, spec.Size)
	if spec.TextValues {
		t.pool = newTextPool(seed)
	}
	if spec.Size > 0 {
		if err := t.checkSize(); err != nil {
			return nil, fmt.Errorf("document.size=%d: %w", spec.Size, err)
		}
	}
	return t, nil
}

// checkSize reports a size the shape cannot reach: documents whose
// structure, with arrays shrunk to nothing, is larger on average.
func (t *tree) checkSize() error {
	r := NewRand()
	var buf []byte
	var fixed, nText float64
	const n = 32
	for k := range int64(n) {
		f, nt := t.fixedSize(k, 0, r, buf)
		fixed += float64(f)
		nText += float64(nt)
	}
	fixed /= n
	if nText == 0 {
		return fmt.Errorf("%s documents have no text to resize", t.name)
	}
	if fixed > float64(t.size)*1.05 {
		return fmt.Errorf("%s documents need about %.0f bytes without their text; raise document.size or make the documents smaller", t.name, fixed)
	}
	return nil
}

// flatFields are the fields of YCSB's records as tree nodes.
func flatFields(spec Spec) []*node {
	fields := make([]*node, spec.FieldCount)
	for i := range fields {
		fields[i] = &node{kind: kText, name: spec.FieldNamePrefix + strconv.Itoa(i), slen: spec.FieldLengths}
	}
	return fields
}

// complexRoot builds the seeds' complex document: width objects named
// a0…, each with leaves text fields (prefix0…) and, above the last of depth
// levels, children objects named after their level's letter (b0…, c0…).
func complexRoot(spec Spec) *node {
	var level func(d int, count int) []*node
	level = func(d, count int) []*node {
		objs := make([]*node, count)
		for i := range objs {
			o := &node{kind: kObject, name: string(rune('a'+d-1)) + strconv.Itoa(i)}
			for j := range spec.Leaves {
				o.fields = append(o.fields, &node{kind: kText, name: spec.FieldNamePrefix + strconv.Itoa(j), slen: spec.FieldLengths})
			}
			if d < spec.Depth {
				o.fields = append(o.fields, level(d+1, spec.Children)...)
			}
			objs[i] = o
		}
		return objs
	}
	return &node{kind: kObject, fields: level(1, spec.Width)}
}

// arrayFields are document.arrays arrays of document.arraylength elements:
// {"id": element number, "val": a word} objects, words, or the element
// numbers themselves (1…n, as Bartunov and Glukhov's arrays).
func arrayFields(spec Spec) []*node {
	var out []*node
	for i := range spec.Arrays {
		val := &node{kind: kEnum, vals: quotedWords, cdf: wordsZipf, categorical: true}
		item := val
		switch spec.ArrayItems {
		case ItemsScalar:
		case ItemsSequence:
			item = &node{kind: kSeq}
		default:
			val.name = "val"
			item = &node{kind: kObject, fields: []*node{{kind: kSeq, name: "id"}, val}}
		}
		out = append(out, &node{kind: kArray, name: "array" + strconv.Itoa(i), alen: spec.ArrayLength, item: item})
	}
	return out
}

// flatShape is a Shape of plain YCSB records: Flat's documents.
type flatShape struct {
	f     *Flat
	paths []PathInfo
}

func newFlatShape(spec Spec, seed uint64) *flatShape {
	names := make([]string, spec.FieldCount)
	for i := range names {
		names[i] = spec.FieldNamePrefix + strconv.Itoa(i)
	}
	s := &flatShape{f: NewFlat(names, spec.FieldLengths, spec.Integrity, seed)}
	if spec.TextValues {
		s.f.pool = newTextPool(seed)
	}
	for _, n := range names {
		s.paths = append(s.paths, PathInfo{Path: n, Type: TypeString, Depth: 1, Leaf: true, Presence: 1})
	}
	return s
}

// FlatOf returns the Flat generator of a plain flat shape, or nil.
func FlatOf(s Shape) *Flat {
	if f, ok := s.(*flatShape); ok {
		return f.f
	}
	return nil
}

func (s *flatShape) AppendDoc(dst, key []byte, keynum int64, r *Rand) []byte {
	return s.f.AppendDoc(dst, key, s.f.ForKey(r, keynum))
}

func (s *flatShape) Paths() []PathInfo  { return s.paths }
func (s *flatShape) TopLevel() []string { return s.f.names }

func (s *flatShape) AppendValue(dst []byte, path string, r *rand.Rand) []byte {
	for i, n := range s.f.names {
		if n == path {
			return s.f.appendValue(dst, nil, i, r)
		}
	}
	return append(dst, "null"...)
}
