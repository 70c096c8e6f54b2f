package document

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"strings"
)

// Shape names (document.shape).
const (
	ShapeFlat      = "flat"
	ShapeComplex   = "complex"
	ShapeBookmarks = "bookmarks"
	ShapeReviews   = "reviews"
	ShapeCustomer  = "customer"
	ShapeBlog      = "blog"
	ShapeSample    = "sample" // implied by document.sample
	ShapeReplay    = "replay" // implied by document.replay
)

// Array item kinds (document.arrayitems).
const (
	ItemsObject   = "object"
	ItemsScalar   = "scalar"
	ItemsSequence = "sequence" // 1, 2, …, n: every array alike, each value at one position
)

// Spec is the parsed document.* configuration. Field comments name the
// property and its default.
type Spec struct {
	Shape string // document.shape: flat (default), complex, bookmarks, reviews, customer, blog; sample/replay are implied by their file

	// complex only
	Depth    int // document.depth (3): levels of objects
	Width    int // document.width (4): objects at the top level
	Leaves   int // document.leaves (2): scalar fields per object
	Children int // document.children (2): child objects per object above the last level

	// flat and complex only
	Arrays      int    // document.arrays (0): top-level arrays array0…arrayN-1
	ArrayLength Dist   // document.arraylength (10): elements per array, a number or a distribution
	ArrayItems  string // document.arrayitems (object): {"id":…,"val":…} objects, scalar words, or the sequence 1…n

	Size int // document.size (0: natural size): serialized size in bytes, ±5%

	Sample   string // document.sample: NDJSON file whose shape is learned
	Replay   string // document.replay: NDJSON file whose documents are stored as they are
	KeyField string // document.keyfield (_id): top-level field of replayed documents set to the record key

	// From the YCSB core properties.
	FieldCount      int     // fieldcount: fields of flat records
	FieldNamePrefix string  // fieldnameprefix: flat field names, complex leaf names
	FieldLengths    Lengths // fieldlength, fieldlengthdistribution: flat and complex values
	Integrity       bool    // dataintegrity: YCSB's deterministic flat values
	TextValues      bool    // fieldvalues=text: values cut from words of a vocabulary (compressible), not random characters
}

// Field value kinds (fieldvalues): random characters (YCSB's) or text.
const (
	FieldValuesRandom = "random"
	FieldValuesText   = "text"
)

// Keys returns every document.* property ParseSpec understands.
func Keys() []string {
	return []string{
		"document.arrayitems", "document.arraylength", "document.arrays", "document.children",
		"document.depth", "document.keyfield", "document.leaves", "document.replay",
		"document.sample", "document.shape", "document.size", "document.width",
	}
}

// Limits of the complex shape, to keep mistakes from exhausting memory.
const (
	maxDepth     = 16
	maxKeys      = 1 << 20
	maxArrays    = 10000
	maxSize      = 1 << 30
	maxZipfRange = 1 << 17
)

// ParseSpec validates the document.* properties of props (other properties
// are ignored, except dataintegrity) and returns the specification, or every
// problem found joined with errors.Join, one line each naming the property
// and value. fieldLengths, fieldCount and prefix are the YCSB core workload's
// fieldlength generator, fieldcount and fieldnameprefix.
func ParseSpec(props map[string]string, fieldLengths Lengths, fieldCount int, prefix string) (Spec, error) {
	p := specParser{props: props}
	s := Spec{FieldCount: fieldCount, FieldNamePrefix: prefix, FieldLengths: fieldLengths}
	s.Integrity = strings.EqualFold(strings.TrimSpace(props["dataintegrity"]), "true")
	s.TextValues = strings.EqualFold(strings.TrimSpace(props["fieldvalues"]), FieldValuesText) // values checked by the workload's validator
	known := map[string]bool{}
	for _, k := range Keys() {
		known[k] = true
	}
	var unknown []string
	for k := range props {
		if strings.HasPrefix(k, "document.") && !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		p.fail(k, "unknown property (known: %s)", strings.Join(Keys(), ", "))
	}

	s.Sample = p.file("document.sample")
	s.Replay = p.file("document.replay")
	s.KeyField = p.str("document.keyfield", "_id")
	def := ShapeFlat
	switch {
	case s.Sample != "" && s.Replay != "":
		p.fail("document.replay", "conflicts with document.sample=%s (use one)", s.Sample)
		s.Replay = ""
		def = ShapeSample
	case s.Sample != "":
		def = ShapeSample
	case s.Replay != "":
		def = ShapeReplay
	}
	s.Shape = p.enum("document.shape", def, ShapeFlat, ShapeComplex, ShapeBookmarks, ShapeReviews, ShapeCustomer, ShapeBlog, ShapeSample, ShapeReplay)
	if s.Shape == ShapeSample && s.Sample == "" {
		p.fail("document.shape", "needs document.sample=FILE.ndjson")
	}
	if s.Shape == ShapeReplay && s.Replay == "" {
		p.fail("document.shape", "needs document.replay=FILE.ndjson")
	}
	if s.Sample != "" && s.Shape != ShapeSample {
		p.fail("document.sample", "conflicts with document.shape=%s", s.Shape)
	}
	if s.Replay != "" && s.Shape != ShapeReplay {
		p.fail("document.replay", "conflicts with document.shape=%s", s.Shape)
	}
	if _, ok := props["document.keyfield"]; ok && s.Shape != ShapeReplay {
		p.fail("document.keyfield", "applies only to document.replay")
	}

	only := func(key string, shapes ...string) {
		if _, ok := props[key]; !ok {
			return
		}
		for _, sh := range shapes {
			if s.Shape == sh {
				return
			}
		}
		p.fail(key, "applies only to document.shape=%s (is %s)", strings.Join(shapes, " or "), s.Shape)
	}
	s.Depth = p.int("document.depth", 3, 1, maxDepth)
	s.Width = p.int("document.width", 4, 1, maxKeys)
	s.Leaves = p.int("document.leaves", 2, 0, maxKeys)
	s.Children = p.int("document.children", 2, 0, maxKeys)
	for _, k := range []string{"document.depth", "document.width", "document.leaves", "document.children"} {
		only(k, ShapeComplex)
	}
	if s.Shape == ShapeComplex {
		if n := complexKeys(s.Depth, s.Width, s.Leaves, s.Children); n > maxKeys {
			p.fail("document.depth", "complex documents of depth %d, width %d, %d leaves and %d children have %.0f keys (more than %d)",
				s.Depth, s.Width, s.Leaves, s.Children, n, maxKeys)
		}
	}
	s.Arrays = p.int("document.arrays", 0, 0, maxArrays)
	only("document.arrays", ShapeFlat, ShapeComplex)
	s.ArrayLength = Dist{Kind: DistConstant, Min: 10, Max: 10}
	if v, ok := props["document.arraylength"]; ok {
		d, err := ParseDist(v)
		if err != nil {
			p.fail("document.arraylength", "%v", err)
		}
		s.ArrayLength = d
		if s.Arrays == 0 {
			p.fail("document.arraylength", "has no effect without document.arrays")
		}
	}
	s.ArrayItems = p.enum("document.arrayitems", ItemsObject, ItemsObject, ItemsScalar, ItemsSequence)
	if _, ok := props["document.arrayitems"]; ok && s.Arrays == 0 {
		p.fail("document.arrayitems", "has no effect without document.arrays")
	}
	if v, ok := props["document.size"]; ok {
		n, err := ParseSize(v)
		switch {
		case err != nil:
			p.fail("document.size", "%v", err)
		case n != 0 && (n < 16 || n > maxSize):
			p.fail("document.size", "out of range (16 bytes to 1 GiB, or 0 for the natural size)")
		default:
			s.Size = int(n)
		}
		if s.Shape == ShapeReplay {
			p.fail("document.size", "does not apply to document.replay (its documents are stored as they are)")
		}
	}
	if s.Shape == ShapeFlat && s.FieldCount < 1 && s.Arrays == 0 {
		p.errs = append(p.errs, fmt.Errorf("fieldcount=%d: flat documents need at least one field", s.FieldCount))
	}
	if s.FieldLengths == nil {
		s.FieldLengths = Dist{Kind: DistConstant, Min: 100, Max: 100}
	}
	if len(p.errs) > 0 {
		return Spec{}, errors.Join(p.errs...)
	}
	return s, nil
}

// complexKeys is the number of keys of a complex document (objects and
// leaves), as a float to survive overflow.
func complexKeys(depth, width, leaves, children int) float64 {
	objs, level := 0.0, float64(width)
	for range depth {
		objs += level
		level *= float64(children)
	}
	return objs * float64(1+leaves)
}

type specParser struct {
	props map[string]string
	errs  []error
}

func (p *specParser) fail(key, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s=%q: %s", key, p.props[key], fmt.Sprintf(format, args...)))
}

func (p *specParser) str(key, def string) string {
	if v, ok := p.props[key]; ok {
		return strings.TrimSpace(v)
	}
	return def
}

func (p *specParser) file(key string) string {
	v := p.str(key, "")
	if v == "" {
		if _, ok := p.props[key]; ok {
			p.fail(key, "needs a file name")
		}
		return ""
	}
	if st, err := os.Stat(v); err != nil {
		p.fail(key, "cannot read: %v", errors.Unwrap(err))
	} else if st.IsDir() {
		p.fail(key, "is a directory")
	}
	return v
}

func (p *specParser) int(key string, def, lo, hi int) int {
	v, ok := p.props[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail(key, "not an integer")
		return def
	}
	if n < lo || n > hi {
		p.fail(key, "out of range (%d to %d)", lo, hi)
		return def
	}
	return n
}

func (p *specParser) enum(key, def string, allowed ...string) string {
	v, ok := p.props[key]
	if !ok {
		return def
	}
	v = strings.ToLower(strings.TrimSpace(v))
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	p.fail(key, "unknown value (want %s)", strings.Join(allowed, ", "))
	return def
}

// ParseSize parses a byte size: an integer with an optional unit, B, kB or
// k (1000), KiB (1024), MB or M (10⁶), MiB (2²⁰), GB, GiB. Units are case
// insensitive except that "KiB"-style units are binary.
func ParseSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	num, unit := s[:i], strings.ToLower(strings.TrimSpace(s[i:]))
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("not a size (want bytes, e.g. 2000, 2kB, 8KiB, 1MB)")
	}
	mult := map[string]int64{"": 1, "b": 1, "k": 1e3, "kb": 1e3, "kib": 1 << 10, "m": 1e6, "mb": 1e6, "mib": 1 << 20, "g": 1e9, "gb": 1e9, "gib": 1 << 30}[unit]
	if mult == 0 {
		return 0, fmt.Errorf("unknown unit %q (want B, kB, KiB, MB, MiB, GB, GiB)", s[i:])
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("too large")
	}
	return n * mult, nil
}

// Distribution kinds of Dist.
const (
	DistConstant = "constant"
	DistUniform  = "uniform"
	DistZipfian  = "zipfian"
)

// Dist is a distribution of small integers (array lengths). Its syntax
// (ParseDist, String):
//
//	N                 always N
//	constant:N        always N
//	uniform:MIN:MAX   uniformly MIN…MAX (inclusive)
//	zipfian:MIN:MAX   MIN…MAX, skewed towards MIN (Zipf, exponent 0.99 as YCSB's zipfian; MAX-MIN < 131072)
//
// The zero Dist always draws 0.
type Dist struct {
	Kind     string
	Min, Max int64
	cdf      []float64 // zipfian: cumulative probabilities of Min…Max
}

// ParseDist parses a distribution (see Dist).
func ParseDist(s string) (Dist, error) {
	parts := strings.Split(strings.TrimSpace(s), ":")
	nums := func(want int) ([]int64, error) {
		if len(parts)-1 != want {
			return nil, fmt.Errorf("%s takes %d number(s) (want N, uniform:MIN:MAX or zipfian:MIN:MAX)", parts[0], want)
		}
		out := make([]int64, want)
		for i, p := range parts[1:] {
			n, err := strconv.ParseInt(strings.TrimSpace(p), 10, 64)
			if err != nil || n < 0 {
				return nil, fmt.Errorf("%q is not a non-negative integer", p)
			}
			out[i] = n
		}
		return out, nil
	}
	if len(parts) == 1 {
		parts = []string{DistConstant, parts[0]}
	}
	switch strings.ToLower(parts[0]) {
	case DistConstant:
		n, err := nums(1)
		if err != nil {
			return Dist{}, err
		}
		return Dist{Kind: DistConstant, Min: n[0], Max: n[0]}, nil
	case DistUniform, DistZipfian:
		n, err := nums(2)
		if err != nil {
			return Dist{}, err
		}
		if n[0] > n[1] {
			return Dist{}, fmt.Errorf("minimum %d greater than maximum %d", n[0], n[1])
		}
		if strings.ToLower(parts[0]) == DistUniform {
			return Dist{Kind: DistUniform, Min: n[0], Max: n[1]}, nil
		}
		if n[1]-n[0] >= maxZipfRange {
			return Dist{}, fmt.Errorf("zipfian range %d…%d too wide (at most %d values)", n[0], n[1], maxZipfRange)
		}
		return newZipfDist(n[0], n[1], 0.99), nil
	}
	return Dist{}, fmt.Errorf("unknown distribution %q (want N, uniform:MIN:MAX or zipfian:MIN:MAX)", parts[0])
}

func newZipfDist(lo, hi int64, theta float64) Dist {
	return Dist{Kind: DistZipfian, Min: lo, Max: hi, cdf: zipfCDF(int(hi-lo+1), theta)}
}

// zipfCDF returns the cumulative probabilities of ranks 1…n with weights
// 1/rank^theta.
func zipfCDF(n int, theta float64) []float64 {
	cdf := make([]float64, n)
	sum := 0.0
	for i := range cdf {
		sum += 1 / math.Pow(float64(i+1), theta)
		cdf[i] = sum
	}
	for i := range cdf {
		cdf[i] /= sum
	}
	return cdf
}

// pick returns the index drawn from a cumulative distribution.
func pick(cdf []float64, r *rand.Rand) int {
	u := r.Float64()
	i, j := 0, len(cdf)-1
	for i < j {
		h := int(uint(i+j) >> 1)
		if cdf[h] <= u {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// Next draws a value; it implements Lengths.
func (d Dist) Next(r *rand.Rand) int64 {
	switch d.Kind {
	case DistUniform:
		return d.Min + r.Int64N(d.Max-d.Min+1)
	case DistZipfian:
		return d.Min + int64(pick(d.cdf, r))
	}
	return d.Min
}

// Mean returns the expected value.
func (d Dist) Mean() float64 {
	switch d.Kind {
	case DistUniform:
		return float64(d.Min+d.Max) / 2
	case DistZipfian:
		m, prev := 0.0, 0.0
		for i, c := range d.cdf {
			m += float64(d.Min+int64(i)) * (c - prev)
			prev = c
		}
		return m
	}
	return float64(d.Min)
}

// String returns the distribution in ParseDist's syntax.
func (d Dist) String() string {
	switch d.Kind {
	case DistUniform, DistZipfian:
		return fmt.Sprintf("%s:%d:%d", d.Kind, d.Min, d.Max)
	}
	return strconv.FormatInt(d.Min, 10)
}
