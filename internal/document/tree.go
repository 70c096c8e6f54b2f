package document

import (
	"bytes"
	"encoding/json"
	"math/bits"
	"math/rand/v2"
	"strconv"
	"time"
)

// A tree shape is a schema of nodes interpreted for every document. Every
// shape except plain flat records (and replayed documents) is a tree.
//
// Determinism under resizing: every node draws the same number of values
// from the key's random source whatever the lengths of its strings, so a
// document can be generated twice, the second time with its text lengths
// scaled to reach document.size exactly, and keep its structure.

type kind uint8

const (
	kObject  kind = iota
	kArray        // item repeated alen times
	kText         // characters from the pool, slen long; resizable
	kWords        // words from a list, slen long; resizable
	kEnum         // one of vals (encoded JSON), weighted by cdf or uniform
	kInt          // integer in [min, max]
	kMoney        // cents in [min, max], printed with two decimals
	kBool         // true with probability prob
	kNull         // null
	kDate         // time in [min, max] Unix seconds, as format
	kPattern      // pattern: '#' digit, '@' upper-case letter, '?' upper-case letter or digit, '%' hex digit, '~' a word of list, a backslash quotes the next character, others literal
	kSeq          // index of the enclosing array element, from 1
	kMixed        // one of alts, weighted by cdf
)

// node is one value position of a tree shape.
type node struct {
	kind     kind
	name     string  // field name in the enclosing object
	key      []byte  // `"name":`
	presence float64 // probability that the field is present (1: always)
	nullable float64 // probability that the value is null

	fields []*node  // kObject
	item   *node    // kArray
	alen   Lengths  // kArray
	slen   Lengths  // kText, kWords
	list   [][]byte // kWords, kPattern: the word list
	vals   [][]byte // kEnum: encoded JSON values
	cdf    []float64
	alts   []*node // kMixed
	min    int64
	max    int64
	prob   float64 // kBool
	format string  // kDate: a time layout; kPattern: the pattern

	categorical bool // kEnum: few distinct values (PathInfo.Categorical)

	// kEnum in arrays: values planted in the first element of a known share
	// of the documents, chosen by the document's plant hash.
	planted []planted
}

// planted is a value set in the documents whose plant hash h has
// h % every == rem: one document in every.
type planted struct {
	val        []byte // encoded JSON
	every, rem uint64
}

// plantHash is the hash of (seed, keynum) that decides planted values,
// independent of the key's random source (which it leaves untouched).
func plantHash(seed uint64, keynum int64) uint64 {
	h := seed ^ uint64(keynum)*0x9e3779b97f4a7c15
	return splitmix64(&h)
}

// gen is the state of generating one document.
type gen struct {
	r    *rand.Rand
	pool []byte
	seq  int64 // index of the current array element, from 1

	planting bool   // generating a document (not a fresh value): plant values
	plant    uint64 // the document's plantHash

	// aScale scales array lengths (out of 1<<16) to shrink documents whose
	// structure alone exceeds document.size; elems counts array elements.
	aScale int64
	elems  int64

	// First pass: what text was drawn.
	sumL, nText uint64
	// Second pass (resizing): text lengths are scaled so that they sum to
	// budget; cumL/cumOut are the running sums before and after scaling.
	resize        bool
	uniform       bool // no text was drawn: share the budget equally
	budget, total uint64
	cumL, cumOut  uint64
}

// resizeTo makes g's text share budget bytes in proportion to the drawn
// lengths, which summed to drawn over nText strings (equally when nothing
// was drawn).
func (g *gen) resizeTo(budget, drawn, nText uint64) {
	g.resize, g.budget, g.total = true, budget, drawn
	if drawn == 0 {
		g.uniform, g.total = true, nText
	}
}

// textLen returns the length of a resizable string drawn as l.
func (g *gen) textLen(l int64) int64 {
	if l < 0 {
		l = 0
	}
	if !g.resize {
		g.sumL += uint64(l)
		g.nText++
		return l
	}
	w := uint64(l)
	if g.uniform {
		w = 1
	}
	g.cumL += w
	hi, lo := bits.Mul64(g.cumL, g.budget)
	out, _ := bits.Div64(hi, lo, g.total)
	n := int64(out - g.cumOut)
	g.cumOut = out
	return n
}

// appendObject appends the fields of an object node.
func (n *node) appendObject(dst []byte, g *gen) []byte {
	dst = append(dst, '{')
	first := true
	for _, f := range n.fields {
		if f.presence < 1 && g.r.Float64() >= f.presence {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = append(dst, f.key...)
		dst = f.appendValue(dst, g)
	}
	return append(dst, '}')
}

// appendValue appends the value of n.
func (n *node) appendValue(dst []byte, g *gen) []byte {
	if n.nullable > 0 && g.r.Float64() < n.nullable {
		return append(dst, "null"...)
	}
	r := g.r
	switch n.kind {
	case kObject:
		return n.appendObject(dst, g)
	case kArray:
		cnt := n.alen.Next(r)
		if g.aScale < fullScale {
			cnt = cnt * g.aScale >> 16
		}
		g.elems += cnt
		saved := g.seq
		dst = append(dst, '[')
		for i := range cnt {
			if i > 0 {
				dst = append(dst, ',')
			}
			g.seq = i + 1
			dst = n.item.appendValue(dst, g)
		}
		g.seq = saved
		return append(dst, ']')
	case kText:
		l := g.textLen(n.slen.Next(r))
		off := r.IntN(poolSize)
		dst = append(dst, '"')
		dst = appendPool(dst, g.pool, off, l)
		return append(dst, '"')
	case kWords:
		l := g.textLen(n.slen.Next(r))
		h := r.Uint64()
		dst = append(dst, '"')
		dst = appendWords(dst, n.list, h, l)
		return append(dst, '"')
	case kEnum:
		var v []byte
		if n.cdf != nil {
			v = n.vals[pick(n.cdf, r)]
		} else {
			v = n.vals[r.IntN(len(n.vals))]
		}
		if g.planting && g.seq == 1 {
			for _, p := range n.planted {
				if g.plant%p.every == p.rem {
					v = p.val
					break
				}
			}
		}
		return append(dst, v...)
	case kInt:
		return strconv.AppendInt(dst, n.min+r.Int64N(n.max-n.min+1), 10)
	case kMoney:
		c := n.min + r.Int64N(n.max-n.min+1)
		dst = strconv.AppendInt(dst, c/100, 10)
		c %= 100
		return append(dst, '.', byte('0'+c/10), byte('0'+c%10))
	case kBool:
		if r.Float64() < n.prob {
			return append(dst, "true"...)
		}
		return append(dst, "false"...)
	case kNull:
		return append(dst, "null"...)
	case kDate:
		t := time.Unix(n.min+r.Int64N(n.max-n.min+1), 0).UTC()
		dst = append(dst, '"')
		dst = t.AppendFormat(dst, n.format)
		return append(dst, '"')
	case kPattern:
		dst = append(dst, '"')
		dst = appendPattern(dst, n.format, n.list, r.Uint64())
		return append(dst, '"')
	case kSeq:
		return strconv.AppendInt(dst, g.seq, 10)
	case kMixed:
		return n.alts[pick(n.cdf, r)].appendValue(dst, g)
	}
	return append(dst, "null"...)
}

// appendPool appends l characters of the pool from off; values longer than
// maxPoolValue continue at other offsets derived from off (drawing nothing).
func appendPool(dst, pool []byte, off int, l int64) []byte {
	for l > 0 {
		m := min(l, maxPoolValue)
		dst = append(dst, pool[off:off+int(m)]...)
		l -= m
		off = (off*5 + 12289) % poolSize
	}
	return dst
}

// splitmix64 advances s and returns the next value of the SplitMix64
// sequence: cheap, allocation-free derived randomness.
func splitmix64(s *uint64) uint64 {
	*s += 0x9e3779b97f4a7c15
	z := *s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// appendWords appends exactly l bytes of space-separated words of list
// chosen by the sequence seeded with h.
func appendWords(dst []byte, list [][]byte, h uint64, l int64) []byte {
	end := len(dst) + int(l)
	for len(dst) < end {
		w := list[splitmix64(&h)%uint64(len(list))]
		room := end - len(dst)
		if len(w) > room {
			w = w[:room]
		}
		dst = append(dst, w...)
		if len(dst) < end {
			dst = append(dst, ' ')
		}
	}
	return dst
}

const (
	digits   = "0123456789"
	hexChars = "0123456789abcdef"
	upper    = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	upperNum = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
)

// appendPattern appends pattern with its placeholders filled from the
// sequence seeded with h (see kPattern).
func appendPattern(dst []byte, pattern string, list [][]byte, h uint64) []byte {
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		switch c {
		case '\\':
			if i+1 < len(pattern) {
				i++
				dst = append(dst, pattern[i])
			}
		case '#':
			dst = append(dst, digits[splitmix64(&h)%10])
		case '@':
			dst = append(dst, upper[splitmix64(&h)%26])
		case '?':
			dst = append(dst, upperNum[splitmix64(&h)%36])
		case '%':
			dst = append(dst, hexChars[splitmix64(&h)%16])
		case '~':
			dst = append(dst, list[splitmix64(&h)%uint64(len(list))]...)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// jsonString returns s encoded as a JSON string.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// tree is a Shape interpreted from a schema of nodes.
type tree struct {
	name  string
	root  *node
	seed  uint64
	size  int64
	pool  []byte
	paths []PathInfo
	top   []string
	index map[string]*node

	// With document.size, a value written by an update is resized like the
	// loaded documents' text, on average: the first keys' text budget
	// against the text they drew (valText strings, valDrawn bytes).
	valBudget, valDrawn, valText uint64
}

func newTree(name string, root *node, seed uint64, size int) *tree {
	t := &tree{name: name, root: root, seed: seed, size: int64(size), pool: newPool(seed), index: map[string]*node{}}
	prepare(root)
	for _, f := range root.fields {
		t.top = append(t.top, f.name)
	}
	t.walk(root, "", 0, false, 1)
	if t.size > 0 {
		t.valueScale()
	}
	return t
}

// valueScale sets the resizing of updated values from the first 32 keys'
// documents: the text budget they were resized to against the text drawn.
// Without it an update writes text of the natural length, and an update
// workload shrinks (or grows) the documents that a document.size sweep
// measures.
func (t *tree) valueScale() {
	r := NewRand()
	var buf []byte
	var budget, sumL, nText uint64
	for k := range int64(32) {
		var g gen
		var fixed int64
		buf, g, fixed = t.firstPass(buf[:0], k, r)
		budget += uint64(max(t.size-fixed, 0))
		sumL += g.sumL
		nText += g.nText
	}
	t.valBudget, t.valDrawn, t.valText = budget, sumL, nText
}

// prepare encodes the field keys of the tree under n.
func prepare(n *node) {
	for _, f := range n.fields {
		if f.key == nil {
			f.key = append(jsonString(f.name), ':')
		}
		if f.presence == 0 {
			f.presence = 1
		}
		prepare(f)
	}
	if n.item != nil {
		prepare(n.item)
	}
	for _, a := range n.alts {
		prepare(a)
	}
}

func (t *tree) walk(n *node, prefix string, depth int, inArray bool, presence float64) {
	for _, f := range n.fields {
		p := f.name
		if prefix != "" {
			p = prefix + "." + f.name
		}
		pr := presence * f.presence
		t.index[p] = f
		t.paths = append(t.paths, pathInfo(f, p, depth+1, inArray, pr))
		t.walkValue(f, p, depth+1, inArray, pr)
	}
}

func (t *tree) walkValue(f *node, p string, depth int, inArray bool, pr float64) {
	switch {
	case f.kind == kObject:
		t.walk(f, p, depth, inArray, pr)
	case f.kind == kArray && f.item.kind == kObject:
		t.walk(f.item, p, depth, true, pr)
	case f.kind == kMixed:
		for _, a := range f.alts {
			if a.kind == kObject || a.kind == kArray {
				t.walkValue(a, p, depth, inArray, pr)
			}
		}
	}
}

// fullScale is an unscaled gen.aScale.
const fullScale = 1 << 16

// AppendDoc implements Shape. With document.size, the document is generated
// until its structure fits (shrinking its arrays if the structure alone
// exceeds the size) and then once more with its text resized to make the
// size exact.
func (t *tree) AppendDoc(dst, key []byte, keynum int64, r *Rand) []byte {
	start := len(dst)
	dst, g, fixed := t.firstPass(dst, keynum, r)
	if t.size == 0 || g.nText == 0 {
		return dst
	}
	g2 := gen{r: r.r, pool: t.pool, aScale: g.aScale, planting: true, plant: g.plant}
	g2.resizeTo(uint64(max(t.size-fixed, 0)), g.sumL, g.nText)
	r.src.Seed(t.seed, uint64(keynum))
	return t.root.appendObject(dst[:start], &g2)
}

// firstPass appends keynum's document as drawn, with its arrays scaled
// down until its structure fits document.size, and returns what was drawn
// and the bytes that are not resizable text.
func (t *tree) firstPass(dst []byte, keynum int64, r *Rand) ([]byte, gen, int64) {
	start := len(dst)
	scale := int64(fullScale)
	for try := 0; ; try++ {
		r.src.Seed(t.seed, uint64(keynum))
		g := gen{r: r.r, pool: t.pool, aScale: scale, planting: true, plant: plantHash(t.seed, keynum)}
		dst = t.root.appendObject(dst[:start], &g)
		fixed := int64(len(dst)-start) - int64(g.sumL)
		if t.size > 0 && g.nText > 0 && fixed > t.size && g.elems > 0 && try < 8 {
			scale = max(scale*t.size*15/(fixed*16), 0)
			continue
		}
		return dst, g, fixed
	}
}

// fixedSize returns the bytes of keynum's document that are not resizable
// text (with arrays scaled by aScale) and how many strings are resizable.
func (t *tree) fixedSize(keynum int64, aScale int64, r *Rand, buf []byte) (fixed int64, nText uint64) {
	r.src.Seed(t.seed, uint64(keynum))
	g := gen{r: r.r, pool: t.pool, aScale: aScale, planting: true, plant: plantHash(t.seed, keynum)}
	buf = t.root.appendObject(buf[:0], &g)
	return int64(len(buf)) - int64(g.sumL), g.nText
}

// Paths implements Shape.
func (t *tree) Paths() []PathInfo { return t.paths }

// TopLevel implements Shape.
func (t *tree) TopLevel() []string { return t.top }

// AppendValue implements Shape.
func (t *tree) AppendValue(dst []byte, path string, r *rand.Rand) []byte {
	n, ok := t.index[path]
	if !ok {
		return append(dst, "null"...)
	}
	g := gen{r: r, pool: t.pool, seq: 1, aScale: fullScale}
	if t.valText > 0 {
		g.resizeTo(t.valBudget, t.valDrawn, t.valText)
	}
	return n.appendValue(dst, &g)
}
