package document

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"time"
)

// Learning the shape of a user's documents (document.sample) and replaying
// them (document.replay). A sample is NDJSON: one JSON object a line; blank
// lines are skipped. Learning keeps, for every path, how often it occurs,
// the mix of its value types, and reservoirs of string lengths, array
// lengths and numbers; strings with few distinct values are kept as
// categories (with their frequencies), strings that are all ISO dates as a
// date range. Generated look-alikes draw from those.

const (
	reservoirSize = 512
	maxCategories = 64
)

type valueKind int

const (
	vString valueKind = iota
	vInt
	vFloat
	vBool
	vNull
	vObject
	vArray
	nValueKinds
)

// stat is what was learned about one value position.
type stat struct {
	count int // values seen (with nulls)
	kinds [nValueKinds]int

	strLens   reservoir
	distinct  map[string]int // nil once there are more than maxCategories
	dateTimes int            // strings that are RFC 3339 times
	dates     int            // strings that are ISO dates
	minT      int64
	maxT      int64

	ints, floats rawReservoir
	trues        int

	fields map[string]*stat
	order  []string

	arrLens reservoir
	item    *stat
}

type reservoir struct {
	n    int
	vals []int64
}

func (rv *reservoir) add(v int64, r *rand.Rand) {
	rv.n++
	if len(rv.vals) < reservoirSize {
		rv.vals = append(rv.vals, v)
	} else if i := r.IntN(rv.n); i < reservoirSize {
		rv.vals[i] = v
	}
}

type rawReservoir struct {
	n    int
	vals []string
}

func (rv *rawReservoir) add(v string, r *rand.Rand) {
	rv.n++
	if len(rv.vals) < reservoirSize {
		rv.vals = append(rv.vals, v)
	} else if i := r.IntN(rv.n); i < reservoirSize {
		rv.vals[i] = v
	}
}

type learner struct {
	r *rand.Rand
}

// learnFile learns the documents of an NDJSON file; with keep, it also
// returns them (compacted).
func learnFile(path string, keep bool) (*stat, [][]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	return learn(f, path, keep)
}

// learn learns the documents of NDJSON read from rd; name names it in
// errors ("name:line: …").
func learn(rd io.Reader, name string, keep bool) (*stat, [][]byte, error) {
	l := &learner{r: rand.New(rand.NewPCG(1, 2))}
	root := &stat{}
	var docs [][]byte
	br := bufio.NewReaderSize(rd, 1<<16)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if t := bytes.TrimSpace(b); len(t) > 0 {
			if perr := l.line(root, t); perr != nil {
				return nil, nil, fmt.Errorf("%s:%d: %w", name, line, perr)
			}
			if keep {
				var c bytes.Buffer
				_ = json.Compact(&c, t)
				docs = append(docs, c.Bytes())
			}
		}
		if err != nil {
			break
		}
	}
	if root.count == 0 {
		return nil, nil, fmt.Errorf("%s: no documents (want one JSON object a line)", name)
	}
	return root, docs, nil
}

func (l *learner) line(root *stat, b []byte) error {
	if !json.Valid(b) {
		var v json.RawMessage
		err := json.Unmarshal(b, &v)
		if err == nil {
			err = errors.New("invalid")
		}
		return fmt.Errorf("invalid JSON: %v", err)
	}
	if b[0] != '{' {
		return fmt.Errorf("not a JSON object (a document is one object a line)")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return l.value(dec, root)
}

func (l *learner) value(dec *json.Decoder, s *stat) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	s.count++
	switch v := tok.(type) {
	case json.Delim:
		if v == '{' {
			s.kinds[vObject]++
			if s.fields == nil {
				s.fields = map[string]*stat{}
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				c := s.fields[k]
				if c == nil {
					c = &stat{}
					s.fields[k] = c
					s.order = append(s.order, k)
				}
				if err := l.value(dec, c); err != nil {
					return err
				}
			}
		} else {
			s.kinds[vArray]++
			if s.item == nil {
				s.item = &stat{}
			}
			n := int64(0)
			for dec.More() {
				if err := l.value(dec, s.item); err != nil {
					return err
				}
				n++
			}
			s.arrLens.add(n, l.r)
		}
		_, err := dec.Token() // the closing delimiter
		return err
	case string:
		s.kinds[vString]++
		s.strLens.add(int64(len(v)), l.r)
		if s.kinds[vString] == 1 {
			s.distinct = map[string]int{}
		}
		if s.distinct != nil {
			s.distinct[v]++
			if len(s.distinct) > maxCategories {
				s.distinct = nil
			}
		}
		var t time.Time
		var err error
		if t, err = time.Parse(time.RFC3339, v); err == nil {
			s.dateTimes++
		} else if t, err = time.Parse(time.DateOnly, v); err == nil {
			s.dates++
		}
		if err == nil {
			u := t.Unix()
			if s.dateTimes+s.dates == 1 || u < s.minT {
				s.minT = u
			}
			if s.dateTimes+s.dates == 1 || u > s.maxT {
				s.maxT = u
			}
		}
	case json.Number:
		if _, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			s.kinds[vInt]++
			s.ints.add(string(v), l.r)
		} else {
			s.kinds[vFloat]++
			s.floats.add(string(v), l.r)
		}
	case bool:
		s.kinds[vBool]++
		if v {
			s.trues++
		}
	case nil:
		s.kinds[vNull]++
	}
	return nil
}

// node returns the schema that generates look-alikes of the values of s.
func (s *stat) node(name string) *node {
	var alts []*node
	var weights []float64
	for k := range nValueKinds {
		if s.kinds[k] > 0 {
			alts = append(alts, s.kindNode(k))
			weights = append(weights, float64(s.kinds[k]))
		}
	}
	if len(alts) == 0 {
		return &node{kind: kNull, name: name}
	}
	if len(alts) == 1 {
		alts[0].name = name
		return alts[0]
	}
	n := &node{kind: kMixed, name: name, alts: alts}
	sum := 0.0
	for _, w := range weights {
		sum += w
		n.cdf = append(n.cdf, sum)
	}
	for i := range n.cdf {
		n.cdf[i] /= sum
	}
	return n
}

func (s *stat) kindNode(k valueKind) *node {
	switch k {
	case vString:
		ns := s.kinds[vString]
		if s.distinct != nil && ns >= 4*len(s.distinct) {
			vals := make([]string, 0, len(s.distinct))
			for v := range s.distinct {
				vals = append(vals, v)
			}
			sort.Strings(vals)
			w := make([]float64, len(vals))
			for i, v := range vals {
				w[i] = float64(s.distinct[v])
				vals[i] = string(jsonString(v))
			}
			return weighted("", vals, w)
		}
		if s.dateTimes == ns || s.dates == ns {
			layout := dateTime
			if s.dates == ns {
				layout = dateOnly
			}
			return &node{kind: kDate, min: s.minT, max: max(s.maxT, s.minT), format: layout}
		}
		return &node{kind: kText, slen: sampleDist(s.strLens.vals)}
	case vInt, vFloat:
		rv := s.ints
		if k == vFloat {
			rv = s.floats
		}
		counts := map[string]int{}
		for _, v := range rv.vals {
			counts[v]++
		}
		vals := make([]string, 0, len(counts))
		for v := range counts {
			vals = append(vals, v)
		}
		sort.Strings(vals)
		w := make([]float64, len(vals))
		for i, v := range vals {
			w[i] = float64(counts[v])
		}
		n := weighted("", vals, w)
		n.categorical = len(vals) <= 16 && rv.n >= 4*len(vals)
		return n
	case vBool:
		return &node{kind: kBool, prob: float64(s.trues) / float64(s.kinds[vBool])}
	case vNull:
		return &node{kind: kNull}
	case vObject:
		n := &node{kind: kObject}
		for _, k := range s.order {
			c := s.fields[k]
			f := c.node(k)
			f.presence = min(1, float64(c.count)/float64(s.kinds[vObject]))
			n.fields = append(n.fields, f)
		}
		return n
	case vArray:
		item := &node{kind: kNull}
		if s.item != nil && s.item.count > 0 {
			item = s.item.node("")
		}
		return &node{kind: kArray, alen: sampleDist(s.arrLens.vals), item: item}
	}
	return &node{kind: kNull}
}

// sampleDist draws one of the values it holds (an empirical distribution).
type sampleDist []int64

func (d sampleDist) Next(r *rand.Rand) int64 {
	if len(d) == 0 {
		return 0
	}
	return d[r.IntN(len(d))]
}

// replayShape stores the sample documents themselves: document k is line
// k mod n, with its key field (document.keyfield), if it has one, set to the
// record key. Paths and AppendValue come from the learned shape.
type replayShape struct {
	docs  [][]byte
	keyAt [][2]int // offsets of the key field's value in docs[i]; -1 if absent
	model *tree
}

func newReplayShape(spec Spec, seed uint64) (*replayShape, error) {
	st, docs, err := learnFile(spec.Replay, true)
	if err != nil {
		return nil, err
	}
	s := &replayShape{docs: docs, model: newTree(ShapeReplay, st.node(""), seed, 0)}
	for _, d := range docs {
		s.keyAt = append(s.keyAt, findTopLevel(d, spec.KeyField))
	}
	return s, nil
}

// findTopLevel returns the offsets of the value of the top-level field key
// in the compact JSON object d, or {-1, -1}.
func findTopLevel(d []byte, key string) [2]int {
	none := [2]int{-1, -1}
	if key == "" {
		return none
	}
	dec := json.NewDecoder(bytes.NewReader(d))
	if _, err := dec.Token(); err != nil {
		return none
	}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return none
		}
		start := int(dec.InputOffset())
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return none
		}
		if k, _ := kt.(string); k == key {
			end := int(dec.InputOffset())
			if start < len(d) && d[start] == ':' {
				start++
			}
			return [2]int{start, end}
		}
	}
	return none
}

func (s *replayShape) AppendDoc(dst, key []byte, keynum int64, _ *Rand) []byte {
	i := keynum % int64(len(s.docs))
	if i < 0 {
		i += int64(len(s.docs))
	}
	d, at := s.docs[i], s.keyAt[i]
	if at[0] < 0 {
		return append(dst, d...)
	}
	dst = append(dst, d[:at[0]]...)
	dst = appendJSONString(dst, key)
	return append(dst, d[at[1]:]...)
}

func (s *replayShape) Paths() []PathInfo  { return s.model.Paths() }
func (s *replayShape) TopLevel() []string { return s.model.TopLevel() }
func (s *replayShape) AppendValue(dst []byte, path string, r *rand.Rand) []byte {
	return s.model.AppendValue(dst, path, r)
}

// appendJSONString appends s as a JSON string.
func appendJSONString(dst, s []byte) []byte {
	dst = append(dst, '"')
	for _, c := range s {
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hexChars[c>>4], hexChars[c&15])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
