package document

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// corpusStats are the statistics a learned shape must reproduce.
type corpusStats struct {
	containers map[string]int            // objects seen at a path
	occ        map[string]int            // values seen at a path
	types      map[string]map[string]int // JSON types seen at a path
	strLen     map[string]float64        // summed string lengths
	arrLen     map[string]float64        // summed array lengths
	values     map[string]map[string]int // string values (for categories)
	depth      int
}

func newCorpusStats() *corpusStats {
	return &corpusStats{containers: map[string]int{}, occ: map[string]int{}, types: map[string]map[string]int{},
		strLen: map[string]float64{}, arrLen: map[string]float64{}, values: map[string]map[string]int{}}
}

func (c *corpusStats) add(doc []byte) error {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return err
	}
	c.walk(v, "", 0, false)
	return nil
}

// walk records v at path; elem: v is an element of the array at path.
func (c *corpusStats) walk(v any, path string, depth int, elem bool) {
	c.depth = max(c.depth, depth)
	typ := ""
	switch x := v.(type) {
	case map[string]any:
		typ = TypeObject
		c.containers[path]++
		for k, e := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			c.occ[p]++
			c.walk(e, p, depth+1, false)
		}
	case []any:
		typ = TypeArray
		c.arrLen[path] += float64(len(x))
		for _, e := range x {
			if m, ok := e.(map[string]any); ok {
				c.walk(m, path, depth, true)
			}
		}
	case string:
		typ = TypeString
		c.strLen[path] += float64(len(x))
		if c.values[path] == nil {
			c.values[path] = map[string]int{}
		}
		c.values[path][x]++
	case json.Number:
		typ = TypeInteger
		if strings.ContainsAny(string(x), ".eE") {
			typ = TypeNumber
		}
	case bool:
		typ = TypeBoolean
	case nil:
		typ = TypeNull
	}
	if path != "" && !elem {
		if c.types[path] == nil {
			c.types[path] = map[string]int{}
		}
		c.types[path][typ]++
	}
}

func (c *corpusStats) presence(p string) float64 {
	parent := ""
	if i := strings.LastIndexByte(p, '.'); i >= 0 {
		parent = p[:i]
	}
	return float64(c.occ[p]) / float64(c.containers[parent])
}

// compare checks that got reproduces want's statistics within tolerance.
func compareStats(t *testing.T, name string, want, got *corpusStats) {
	t.Helper()
	if want.depth != got.depth {
		t.Errorf("%s: depth %d, want %d", name, got.depth, want.depth)
	}
	for p, n := range want.occ {
		if n < 100 {
			continue
		}
		if got.occ[p] == 0 {
			t.Errorf("%s %s: never generated", name, p)
			continue
		}
		if d := math.Abs(got.presence(p) - want.presence(p)); d > 0.05 {
			t.Errorf("%s %s: present in %.3f, want %.3f", name, p, got.presence(p), want.presence(p))
		}
		for typ, k := range want.types[p] {
			wf, gf := float64(k)/float64(n), float64(got.types[p][typ])/float64(got.occ[p])
			if math.Abs(wf-gf) > 0.05 {
				t.Errorf("%s %s: %.3f of type %s, want %.3f", name, p, gf, typ, wf)
			}
		}
		if ws := want.types[p][TypeString]; ws >= 100 {
			wm, gm := want.strLen[p]/float64(ws), got.strLen[p]/float64(got.types[p][TypeString])
			if math.Abs(wm-gm) > 0.1*wm+0.5 {
				t.Errorf("%s %s: mean string length %.1f, want %.1f", name, p, gm, wm)
			}
			if wv := want.values[p]; len(wv) <= 20 {
				for v, k := range wv {
					wf, gf := float64(k)/float64(ws), float64(got.values[p][v])/float64(got.types[p][TypeString])
					if math.Abs(wf-gf) > 0.04 {
						t.Errorf("%s %s=%q: frequency %.3f, want %.3f", name, p, v, gf, wf)
					}
				}
			}
		}
		if wa := want.types[p][TypeArray]; wa >= 100 {
			wm, gm := want.arrLen[p]/float64(wa), got.arrLen[p]/float64(got.types[p][TypeArray])
			if math.Abs(wm-gm) > 0.1*wm+0.2 {
				t.Errorf("%s %s: mean array length %.2f, want %.2f", name, p, gm, wm)
			}
		}
	}
	for p, n := range got.occ {
		if want.occ[p] == 0 && n > 0 {
			t.Errorf("%s %s: generated but not in the sample", name, p)
		}
	}
}

// mixedSample writes documents with optional keys and mixed types.
func mixedSample(t *testing.T, n int) string {
	r := rand.New(rand.NewPCG(5, 5))
	var b bytes.Buffer
	for i := range n {
		m := map[string]any{"id": i, "kind": []string{"a", "b", "b", "c"}[r.IntN(4)]}
		if r.Float64() < 0.7 {
			m["score"] = math.Round(r.Float64()*1000) / 100
		}
		switch r.IntN(3) {
		case 0:
			m["v"] = r.IntN(100)
		case 1:
			m["v"] = strings.Repeat("x", 5+r.IntN(40))
		default:
			m["v"] = nil
		}
		items := []any{}
		for range r.IntN(6) {
			items = append(items, map[string]any{"sku": "S" + strconv.Itoa(r.IntN(1000)), "qty": r.IntN(9) + 1,
				"meta": map[string]any{"gift": r.Float64() < 0.2}})
		}
		m["items"] = items
		m["when"] = "2024-0" + strconv.Itoa(1+r.IntN(9)) + "-1" + strconv.Itoa(r.IntN(9)) + "T10:00:00Z"
		line, _ := json.Marshal(m)
		b.Write(line)
		b.WriteByte('\n')
	}
	name := filepath.Join(t.TempDir(), "mixed.ndjson")
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

func TestSampleRoundTrip(t *testing.T) {
	const n = 2000
	files := map[string]string{"mixed": mixedSample(t, n)}
	for _, shape := range []string{"bookmarks", "reviews", "customer", "blog"} {
		files[shape] = writeSample(t, newShape(t, map[string]string{"document.shape": shape}, constLen(100), 7), n)
	}
	complexFile := writeSample(t, newShape(t, map[string]string{"document.shape": "complex", "document.arrays": "2",
		"document.arraylength": "uniform:0:8"}, uniformLen{1, 100}, 7), n)
	files["complex"] = complexFile
	for name, file := range files {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			roundTrip(t, name, file, n)
		})
	}
	// What the learned shape says about its paths.
	s := newShape(t, map[string]string{"document.sample": files["mixed"]}, constLen(100), 1)
	for path, want := range map[string]PathInfo{
		"kind":            {Type: TypeString, Categorical: true, Depth: 1},
		"when":            {Type: TypeString, Format: "date-time", Depth: 1},
		"items":           {Type: TypeArray, Items: TypeObject, Depth: 1},
		"items.qty":       {Type: TypeInteger, InArray: true, Categorical: true, Depth: 2},
		"items.meta.gift": {Type: TypeBoolean, InArray: true, Categorical: true, Depth: 3},
		"v":               {Nullable: true, Depth: 1},
	} {
		got := pathByName(s.Paths(), path)
		got.Leaf, got.Array, got.Object, got.Path, got.Presence = false, false, false, "", 0
		if path == "v" {
			got.Type, got.Categorical = "", false // v varies
		}
		if got != want {
			t.Errorf("mixed %s:\n got %+v\nwant %+v", path, got, want)
		}
	}
	if p := pathByName(s.Paths(), "score"); math.Abs(p.Presence-0.7) > 0.05 || p.Type != TypeNumber {
		t.Errorf("score: %+v", p)
	}
}

// roundTrip learns file, generates n documents and compares statistics.
func roundTrip(t *testing.T, name, file string, n int) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	want := newCorpusStats()
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte("\n")) {
		if err := want.add(line); err != nil {
			t.Fatal(err)
		}
	}
	s := newShape(t, map[string]string{"document.sample": file}, constLen(100), 99)
	got := newCorpusStats()
	r := NewRand()
	var buf []byte
	for k := range int64(n) {
		buf = s.AppendDoc(buf[:0], nil, k+1_000_000, r)
		if err := got.add(buf); err != nil {
			t.Fatalf("%s: %v: %s", name, err, buf)
		}
	}
	compareStats(t, name, want, got)
}

func TestMalformedSample(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ content, want string }{
		{"{\"a\":1}\n\n{\"a\":\n", ":3: invalid JSON: unexpected end of JSON input"},
		{"{\"a\":1}\r\n[1,2]\n", ":2: not a JSON object"},
		{"{\"a\":1} {\"b\":2}\n", ":1: invalid JSON"},
		{"\n  \n", ": no documents"},
		{"{\"a\":1}\n{\"a\":tru}", ":2: invalid JSON: invalid character"},
	} {
		name := filepath.Join(dir, "bad.ndjson")
		if err := os.WriteFile(name, []byte(tc.content), 0o644); err != nil {
			t.Fatal(err)
		}
		for _, prop := range []string{"document.sample", "document.replay"} {
			spec, err := ParseSpec(map[string]string{prop: name}, nil, 10, "field")
			if err != nil {
				t.Fatal(err)
			}
			_, err = New(spec, 1)
			if err == nil || !strings.HasPrefix(err.Error(), name+tc.want) {
				t.Errorf("%s with %q: %v, want %s%s", prop, tc.content, err, name, tc.want)
			}
		}
	}
}

func TestReplay(t *testing.T) {
	name := filepath.Join(t.TempDir(), "r.ndjson")
	lines := "{\"_id\": \"orig\", \"v\": 1}\n{\"v\":2}\n\n{\"v\":3,\"_id\":{\"$oid\":\"x\"},\"w\":[1, 2]}\n"
	if err := os.WriteFile(name, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newShape(t, map[string]string{"document.replay": name}, nil, 1)
	r := NewRand()
	for k, want := range []string{`{"_id":"user0","v":1}`, `{"v":2}`, `{"v":3,"_id":"user2","w":[1,2]}`, `{"_id":"user3","v":1}`, `{"v":2}`} {
		if got := string(s.AppendDoc(nil, []byte("user"+strconv.Itoa(k)), int64(k), r)); got != want {
			t.Errorf("document %d = %s, want %s", k, got, want)
		}
	}
	if got := string(s.AppendDoc(nil, []byte(`a"b`), 0, r)); got != `{"_id":"a\"b","v":1}` {
		t.Errorf("quoted key: %s", got)
	}
	if got := strings.Join(s.TopLevel(), ","); got != "_id,v,w" {
		t.Errorf("TopLevel = %s", got)
	}
	if p := pathByName(s.Paths(), "_id"); p.Type != TypeString || math.Abs(p.Presence-2.0/3) > 1e-9 {
		t.Errorf("_id: %+v", p)
	}
	s = newShape(t, map[string]string{"document.replay": name, "document.keyfield": "v"}, nil, 1)
	if got := string(s.AppendDoc(nil, []byte("k"), 1, r)); got != `{"v":"k"}` {
		t.Errorf("keyfield v: %s", got)
	}
}

func FuzzLearn(f *testing.F) {
	f.Add([]byte("{\"a\":1,\"b\":[1,2,{\"c\":null}],\"d\":\"2024-01-02\"}\n{\"a\":\"x\",\"e\":{\"f\":true}}\n"))
	f.Add([]byte("{}\n{\"\\u0000k\\\"\":\"\\ud800\"}\n"))
	f.Add([]byte("{\"a\":[[[]]],\"b\":1e308,\"c\":-0.5}\r\n\n{\"_id\":{\"$oid\":\"1\"}}"))
	f.Add([]byte("not json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, docs, err := learn(bytes.NewReader(data), "fuzz", true)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		for _, d := range docs {
			if !json.Valid(d) {
				t.Fatalf("replayed document invalid: %s", d)
			}
		}
		for _, size := range []int{0, 300} {
			tr := newTree(ShapeSample, st.node(""), 1, size)
			r := NewRand()
			for k := range int64(8) {
				d := tr.AppendDoc(nil, []byte("k"), k, r)
				if !json.Valid(d) {
					t.Fatalf("generated document invalid: %s", d)
				}
			}
			for _, p := range tr.Paths() {
				if v := tr.AppendValue(nil, p.Path, r.r); !json.Valid(v) {
					t.Fatalf("value of %s invalid: %s", p.Path, v)
				}
			}
		}
		rs := &replayShape{docs: docs, model: newTree(ShapeReplay, st.node(""), 1, 0)}
		for _, d := range docs {
			rs.keyAt = append(rs.keyAt, findTopLevel(d, "_id"))
		}
		for k := range int64(len(docs)) {
			if d := rs.AppendDoc(nil, []byte("key\x01\""), k, nil); !json.Valid(d) {
				t.Fatalf("replayed document with key invalid: %s", d)
			}
		}
	})
}
