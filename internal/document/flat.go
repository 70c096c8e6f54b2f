// Package doc generates the documents docbench stores. A document is a pure
// function of (seed, shape, key number): any worker regenerates it, which
// makes verification possible. Encoders append to the caller's buffer and
// allocate nothing.
package document

import (
	"math/rand/v2"
	"strconv"
)

// Lengths draws field lengths (YCSB's fieldlength generator).
type Lengths interface {
	Next(r *rand.Rand) int64
}

// Flat generates YCSB's flat records: fieldcount string fields named
// prefix0…prefixN-1, encoded as one JSON object.
type Flat struct {
	names     []string
	quoted    [][]byte // `"field0":`
	lengths   Lengths
	integrity bool
	seed      uint64
	pool      []byte
}

// poolSize is the size of the random character pool values are cut from.
const poolSize = 1 << 16

// poolChars need no escaping in JSON, SQL literals or CSV.
const poolChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// NewFlat returns a flat document generator. With integrity, values are
// YCSB's deterministic ones (key:field:hash…) so that reads can be checked.
func NewFlat(names []string, lengths Lengths, integrity bool, seed uint64) *Flat {
	f := &Flat{names: names, lengths: lengths, integrity: integrity, seed: seed}
	for _, n := range names {
		f.quoted = append(f.quoted, strconv.AppendQuote(nil, n))
	}
	f.pool = newPool(seed)
	return f
}

// newPool returns the character pool of seed that values are cut from: the
// same for every shape, so that flat records stay byte-identical.
func newPool(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x646f6362656e6368))
	pool := make([]byte, poolSize+maxPoolValue)
	for i := range pool {
		pool[i] = poolChars[r.IntN(len(poolChars))]
	}
	return pool
}

// newTextPool returns the pool of fieldvalues=text: words of a small
// vocabulary (Zipf-skewed, space-separated), so that values compress as
// text does (pglz, lz4) where random characters do not.
func newTextPool(seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 0x74657874)) // "text"
	pool := make([]byte, 0, poolSize+maxPoolValue+16)
	for len(pool) < poolSize+maxPoolValue {
		pool = append(pool, wordList[pick(wordsZipf, r)]...)
		pool = append(pool, ' ')
	}
	return pool[:poolSize+maxPoolValue]
}

// maxPoolValue is the longest value cut from the pool without repetition.
const maxPoolValue = 1 << 14

// Names returns the field names.
func (f *Flat) Names() []string { return f.names }

// Integrity reports whether values are YCSB's deterministic ones.
func (f *Flat) Integrity() bool { return f.integrity }

// Rand is reusable per-worker randomness for Flat.
type Rand struct {
	src *rand.PCG
	r   *rand.Rand
}

// NewRand returns per-worker randomness for document generation.
func NewRand() *Rand {
	src := rand.NewPCG(0, 0)
	return &Rand{src: src, r: rand.New(src)}
}

// ForKey reseeds r so that what it draws is a function of (seed, keynum).
func (f *Flat) ForKey(r *Rand, keynum int64) *rand.Rand {
	r.src.Seed(f.seed, uint64(keynum))
	return r.r
}

// AppendDoc appends the whole document for key (keynum) to dst. The values
// drawn come from r: pass f.ForKey(…) for the document a key was loaded with.
func (f *Flat) AppendDoc(dst, key []byte, r *rand.Rand) []byte {
	dst = append(dst, '{')
	for i := range f.names {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = f.appendField(dst, key, i, r)
	}
	return append(dst, '}')
}

// AppendFields appends a JSON object holding only the given fields.
func (f *Flat) AppendFields(dst, key []byte, fields []int, r *rand.Rand) []byte {
	dst = append(dst, '{')
	for j, i := range fields {
		if j > 0 {
			dst = append(dst, ',')
		}
		dst = f.appendField(dst, key, i, r)
	}
	return append(dst, '}')
}

func (f *Flat) appendField(dst, key []byte, i int, r *rand.Rand) []byte {
	dst = append(dst, f.quoted[i]...)
	dst = append(dst, ':')
	return f.appendValue(dst, key, i, r)
}

// appendValue appends the JSON string value of field i.
func (f *Flat) appendValue(dst, key []byte, i int, r *rand.Rand) []byte {
	dst = append(dst, '"')
	n := int(f.lengths.Next(r))
	if f.integrity && key != nil {
		dst = AppendDeterministic(dst, key, f.names[i], n)
	} else {
		for n > 0 {
			m := min(n, maxPoolValue)
			off := r.IntN(poolSize)
			dst = append(dst, f.pool[off:off+m]...)
			n -= m
		}
	}
	return append(dst, '"')
}

// AppendDeterministic appends YCSB's deterministic field value
// (CoreWorkload.buildDeterministicValue): "key:field", then ":" and the Java
// String.hashCode of everything so far (that ":" included), repeated until
// size, cut to size.
func AppendDeterministic(dst, key []byte, field string, size int) []byte {
	start := len(dst)
	var h int32
	add := func(b []byte) {
		for _, c := range b {
			h = 31*h + int32(c)
		}
	}
	dst = append(dst, key...)
	dst = append(dst, ':')
	dst = append(dst, field...)
	add(dst[start:])
	for len(dst)-start < size {
		dst = append(dst, ':')
		h = 31*h + ':'
		mark := len(dst)
		dst = strconv.AppendInt(dst, int64(h), 10)
		add(dst[mark:])
	}
	return dst[:start+size]
}
