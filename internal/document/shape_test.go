package document

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// newShape parses props (document.* and dataintegrity) over YCSB's default
// fieldcount and prefix and returns the shape for seed.
func newShape(t testing.TB, props map[string]string, fieldLen Lengths, seed uint64) Shape {
	t.Helper()
	spec, err := ParseSpec(props, fieldLen, 10, "field")
	if err != nil {
		t.Fatalf("ParseSpec(%v): %v", props, err)
	}
	s, err := New(spec, seed)
	if err != nil {
		t.Fatalf("New(%v): %v", props, err)
	}
	return s
}

// writeSample writes n documents of s as NDJSON and returns the file name.
func writeSample(t testing.TB, s Shape, n int) string {
	t.Helper()
	var buf []byte
	r := NewRand()
	for k := range int64(n) {
		buf = s.AppendDoc(buf, []byte("user"+strconv.FormatInt(k, 10)), k, r)
		buf = append(buf, '\n')
	}
	name := filepath.Join(t.TempDir(), "sample.ndjson")
	if err := os.WriteFile(name, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// shapeCases are the configurations every generic test runs over.
func shapeCases(t testing.TB) map[string]map[string]string {
	reviews := newShape(t, map[string]string{"document.shape": "reviews"}, constLen(100), 3)
	sample := writeSample(t, reviews, 300)
	return map[string]map[string]string{
		"flat":             {},
		"flat+arrays":      {"document.arrays": "2", "document.arraylength": "zipfian:0:20"},
		"flat+size":        {"document.size": "3000"},
		"complex":          {"document.shape": "complex"},
		"complex+arrays":   {"document.shape": "complex", "document.arrays": "3", "document.arrayitems": "scalar", "document.arraylength": "uniform:1:9"},
		"complex+size":     {"document.shape": "complex", "document.size": "8kB"},
		"bookmarks":        {"document.shape": "bookmarks"},
		"reviews":          {"document.shape": "reviews"},
		"customer":         {"document.shape": "customer"},
		"blog":             {"document.shape": "blog"},
		"blog+size":        {"document.shape": "blog", "document.size": "20000"},
		"sample":           {"document.sample": sample},
		"sample+size":      {"document.sample": sample, "document.size": "1000"},
		"replay":           {"document.replay": sample},
		"customer+size 1M": {"document.shape": "customer", "document.size": "1MB"},
	}
}

func TestShapesAreValidDeterministicAndVary(t *testing.T) {
	for name, props := range shapeCases(t) {
		t.Run(name, func(t *testing.T) {
			a := newShape(t, props, constLen(100), 42)
			b := newShape(t, props, constLen(100), 42)
			other := newShape(t, props, constLen(100), 43)
			ra, rb := NewRand(), NewRand()
			seen := map[string]bool{}
			n := int64(400)
			if strings.Contains(name, "1M") {
				n = 10
			}
			sameOther := 0
			for k := range n {
				key := []byte("user" + strconv.FormatInt(k, 10))
				d := a.AppendDoc(nil, key, k, ra)
				if !json.Valid(d) {
					t.Fatalf("key %d: invalid JSON: %s", k, d)
				}
				// Another instance, other keys in between: the same document.
				_ = b.AppendDoc(nil, []byte("x"), k+1000, rb)
				if d2 := b.AppendDoc(make([]byte, 3, 10), key, k, rb)[3:]; !bytes.Equal(d, d2) {
					t.Fatalf("key %d: two generators disagree:\n%s\n%s", k, d, d2)
				}
				if bytes.Equal(d, other.AppendDoc(nil, key, k, rb)) {
					sameOther++
				}
				seen[string(d)] = true
			}
			if name == "replay" {
				n = 300 // the sample's lines
			}
			if len(seen) != int(n) {
				t.Errorf("%d distinct documents for %d keys", len(seen), n)
			}
			if name != "replay" && sameOther > 0 {
				t.Errorf("another seed gave %d identical documents", sameOther)
			}
		})
	}
}

func TestPlainFlatIsFlat(t *testing.T) {
	for _, integrity := range []bool{false, true} {
		props := map[string]string{"dataintegrity": strconv.FormatBool(integrity)}
		s := newShape(t, props, constLen(100), 9)
		names := make([]string, 10)
		for i := range names {
			names[i] = "field" + strconv.Itoa(i)
		}
		f := NewFlat(names, constLen(100), integrity, 9)
		if FlatOf(s) == nil {
			t.Fatal("FlatOf(flat shape) = nil")
		}
		r1, r2 := NewRand(), NewRand()
		for k := range int64(200) {
			key := []byte("user" + strconv.FormatInt(k*7919, 10))
			want := f.AppendDoc(nil, key, f.ForKey(r1, k))
			if got := s.AppendDoc(nil, key, k, r2); !bytes.Equal(got, want) {
				t.Fatalf("integrity=%v key %d:\n got %s\nwant %s", integrity, k, got, want)
			}
		}
		if got := strings.Join(s.TopLevel(), ","); got != strings.Join(names, ",") {
			t.Errorf("TopLevel = %s", got)
		}
	}
}

// walkStats counts what a decoded document holds.
type docStats struct {
	objects map[int]int // objects by depth (1: top-level fields)
	leaves  int
	keys    int
	depth   int
}

func countDoc(v any, depth int, st *docStats) {
	switch x := v.(type) {
	case map[string]any:
		if depth > 0 {
			st.objects[depth]++
		}
		st.depth = max(st.depth, depth)
		for _, c := range x {
			st.keys++
			countDoc(c, depth+1, st)
		}
	case []any:
		for _, c := range x {
			countDoc(c, depth, st)
		}
	default:
		st.leaves++
	}
}

func TestComplexExactCounts(t *testing.T) {
	for _, tc := range []struct{ depth, width, leaves, children int }{
		{3, 4, 2, 2}, {1, 10, 10, 0}, {2, 3, 0, 5}, {5, 2, 3, 2}, {4, 1, 1, 3},
	} {
		props := map[string]string{"document.shape": "complex",
			"document.depth": strconv.Itoa(tc.depth), "document.width": strconv.Itoa(tc.width),
			"document.leaves": strconv.Itoa(tc.leaves), "document.children": strconv.Itoa(tc.children)}
		s := newShape(t, props, constLen(7), 1)
		d := s.AppendDoc(nil, []byte("k"), 5, NewRand())
		var m map[string]any
		if err := json.Unmarshal(d, &m); err != nil {
			t.Fatal(err)
		}
		st := docStats{objects: map[int]int{}}
		countDoc(m, 0, &st)
		objs := 0
		for level, want := 1, tc.width; level <= tc.depth; level, want = level+1, want*tc.children {
			if st.objects[level] != want {
				t.Errorf("%+v: %d objects at level %d, want %d", tc, st.objects[level], level, want)
			}
			objs += want
		}
		if st.leaves != objs*tc.leaves {
			t.Errorf("%+v: %d leaves, want %d", tc, st.leaves, objs*tc.leaves)
		}
		if want := int(complexKeys(tc.depth, tc.width, tc.leaves, tc.children)); st.keys != want || len(s.Paths()) != want {
			t.Errorf("%+v: %d keys, %d paths, want %d", tc, st.keys, len(s.Paths()), want)
		}
		if st.depth != tc.depth {
			t.Errorf("%+v: objects nest %d deep, want %d", tc, st.depth, tc.depth)
		}
		if len(s.TopLevel()) != tc.width {
			t.Errorf("%+v: top level %v", tc, s.TopLevel())
		}
		for _, p := range s.Paths() {
			if p.Leaf && (len(p.Path) != len(strings.ReplaceAll(p.Path, ".", ""))+p.Depth-1 || p.Type != TypeString) {
				t.Errorf("%+v: path %+v", tc, p)
			}
			if p.Depth > tc.depth+1 {
				t.Errorf("%+v: path %s deeper than %d", tc, p.Path, tc.depth+1)
			}
		}
	}
	// The default document: 28 objects in 3 levels, 56 values of fieldlength.
	s := newShape(t, map[string]string{"document.shape": "complex"}, constLen(100), 1)
	var m map[string]any
	if err := json.Unmarshal(s.AppendDoc(nil, nil, 1, NewRand()), &m); err != nil {
		t.Fatal(err)
	}
	v := m["a3"].(map[string]any)["b1"].(map[string]any)["c0"].(map[string]any)["field1"].(string)
	if len(v) != 100 {
		t.Errorf("a3.b1.c0.field1 has %d characters, want fieldlength 100", len(v))
	}
}

func TestArrays(t *testing.T) {
	s := newShape(t, map[string]string{"document.arrays": "3", "document.arraylength": "uniform:2:6"}, constLen(5), 1)
	r := NewRand()
	total := 0
	const docs = 2000
	for k := range int64(docs) {
		var m map[string]any
		if err := json.Unmarshal(s.AppendDoc(nil, nil, k, r), &m); err != nil {
			t.Fatal(err)
		}
		if len(m) != 13 {
			t.Fatalf("%d fields, want 10 + 3 arrays", len(m))
		}
		for i := range 3 {
			a := m["array"+strconv.Itoa(i)].([]any)
			if len(a) < 2 || len(a) > 6 {
				t.Fatalf("array of %d elements", len(a))
			}
			total += len(a)
			for j, e := range a {
				o := e.(map[string]any)
				if o["id"].(float64) != float64(j+1) || o["val"].(string) == "" || len(o) != 2 {
					t.Fatalf("element %d: %v", j, o)
				}
			}
		}
	}
	if mean := float64(total) / (3 * docs); math.Abs(mean-4) > 0.1 {
		t.Errorf("mean array length %.2f, want 4", mean)
	}
	// Scalars, zipfian lengths in complex documents.
	s = newShape(t, map[string]string{"document.shape": "complex", "document.arrays": "1",
		"document.arrayitems": "scalar", "document.arraylength": "zipfian:1:100"}, constLen(5), 1)
	short := 0
	for k := range int64(docs) {
		var m map[string]any
		if err := json.Unmarshal(s.AppendDoc(nil, nil, k, r), &m); err != nil {
			t.Fatal(err)
		}
		a := m["array0"].([]any)
		if len(a) < 1 || len(a) > 100 {
			t.Fatalf("array of %d elements", len(a))
		}
		if _, ok := a[0].(string); !ok {
			t.Fatalf("element %v is not a string", a[0])
		}
		if len(a) <= 10 {
			short++
		}
	}
	if short < docs/2 {
		t.Errorf("zipfian:1:100: only %d of %d arrays of 10 elements or fewer", short, docs)
	}
	if p := pathByName(s.Paths(), "array0"); !p.Array || p.Items != TypeString || p.Depth != 1 {
		t.Errorf("array0: %+v", p)
	}
	// The sequence: every array 1…n, each value at one position.
	s = newShape(t, map[string]string{"document.arrays": "1", "document.arrayitems": "sequence", "document.arraylength": "5"}, constLen(5), 1)
	for k := range int64(3) {
		var m map[string]any
		if err := json.Unmarshal(s.AppendDoc(nil, nil, k, r), &m); err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(m["array0"]); got != "[1 2 3 4 5]" {
			t.Fatalf("document %d: array0 %s, want [1 2 3 4 5]", k, got)
		}
	}
	if p := pathByName(s.Paths(), "array0"); !p.Array || p.Items != TypeInteger {
		t.Errorf("array0 of a sequence: %+v", p)
	}
}

func pathByName(ps []PathInfo, name string) PathInfo {
	for _, p := range ps {
		if p.Path == name {
			return p
		}
	}
	return PathInfo{}
}

func TestSizesWithinFivePercent(t *testing.T) {
	shapes := map[string]map[string]string{
		"flat":      {},
		"complex":   {"document.shape": "complex"},
		"arrays":    {"document.arrays": "2", "document.arraylength": "uniform:0:30"},
		"bookmarks": {"document.shape": "bookmarks"},
		"reviews":   {"document.shape": "reviews"},
		"customer":  {"document.shape": "customer"},
		"blog":      {"document.shape": "blog"},
	}
	for name, props := range shapes {
		for _, size := range []int{200, 2000, 8000, 100_000, 1_000_000} {
			p := map[string]string{"document.size": strconv.Itoa(size)}
			for k, v := range props {
				p[k] = v
			}
			spec, err := ParseSpec(p, uniformLen{1, 200}, 10, "field")
			if err != nil {
				t.Fatal(err)
			}
			s, err := New(spec, 1)
			if err != nil {
				// Only shapes whose fixed part is larger than the size may refuse.
				if size >= 2000 || !strings.Contains(err.Error(), "without their text") {
					t.Errorf("%s at %d bytes: %v", name, size, err)
				}
				continue
			}
			r := NewRand()
			n := int64(50)
			if size >= 100_000 {
				n = 5
			}
			var buf []byte
			for k := range n {
				buf = s.AppendDoc(buf[:0], nil, k, r)
				if d := math.Abs(float64(len(buf)-size)) / float64(size); d > 0.05 {
					t.Errorf("%s at %d bytes: key %d is %d bytes", name, size, k, len(buf))
					break
				}
				if !json.Valid(buf) {
					t.Fatalf("%s at %d bytes: invalid JSON", name, size)
				}
			}
		}
	}
	// The 200-byte documents of the small shapes must work.
	for _, props := range []map[string]string{{}, {"document.arrays": "1"}} {
		props["document.size"] = "200"
		newShape(t, props, constLen(100), 1)
	}
}

type uniformLen struct{ lo, hi int64 }

func (u uniformLen) Next(r *rand.Rand) int64 { return u.lo + r.Int64N(u.hi-u.lo+1) }

func TestRealisticShapes(t *testing.T) {
	for _, tc := range []struct {
		shape string
		want  map[string]PathInfo // path: expected (Type, Format, Array, InArray, Categorical, Depth)
		top   string
	}{
		{"bookmarks", map[string]PathInfo{
			"title":             {Type: TypeString, Depth: 1},
			"updated":           {Type: TypeString, Format: "date-time", Depth: 1},
			"tags":              {Type: TypeArray, Items: TypeObject, Depth: 1},
			"tags.term":         {Type: TypeString, InArray: true, Categorical: true, Depth: 2},
			"tags.label":        {Type: TypeNull, InArray: true, Depth: 2},
			"links.href":        {Type: TypeString, InArray: true, Depth: 2},
			"title_detail.type": {Type: TypeString, Categorical: true, Depth: 2},
			"guidislink":        {Type: TypeBoolean, Categorical: true, Depth: 1},
			"source":            {Type: TypeObject, Depth: 1},
		}, "id,link,title,title_detail,author,comments,guidislink,updated,tags,links,source,wfw_commentrss"},
		{"reviews", map[string]PathInfo{
			"review_rating":       {Type: TypeInteger, Categorical: true, Depth: 1},
			"review_date":         {Type: TypeString, Format: "date", Depth: 1},
			"product_group":       {Type: TypeString, Categorical: true, Depth: 1},
			"product_sales_rank":  {Type: TypeInteger, Depth: 1},
			"similar_product_ids": {Type: TypeArray, Items: TypeString, Depth: 1},
		}, ""},
		{"customer", map[string]PathInfo{
			"age":                       {Type: TypeInteger, Depth: 1},
			"balance":                   {Type: TypeNumber, Depth: 1},
			"middle_name":               {Type: TypeString, Categorical: true, Nullable: true, Depth: 1},
			"address.prev_address":      {Type: TypeObject, Nullable: true, Depth: 2},
			"address.prev_address.zip":  {Type: TypeString, Depth: 3},
			"children.age":              {Type: TypeInteger, InArray: true, Depth: 2},
			"visited_places.cities":     {Type: TypeArray, Items: TypeString, InArray: true, Depth: 2},
			"visited_places.country":    {Type: TypeString, InArray: true, Categorical: true, Depth: 2},
			"devices":                   {Type: TypeArray, Items: TypeString, Depth: 1},
			"address.country":           {Type: TypeString, Categorical: true, Depth: 2},
			"is_active":                 {Type: TypeBoolean, Categorical: true, Depth: 1},
			"dob":                       {Type: TypeString, Format: "date", Depth: 1},
			"created_at":                {Type: TypeString, Format: "date-time", Depth: 1},
			"address.prev_address.city": {Type: TypeString, Categorical: true, Depth: 3},
		}, ""},
		{"blog", map[string]PathInfo{
			"posts":                  {Type: TypeArray, Items: TypeObject, Depth: 1},
			"posts.comments":         {Type: TypeArray, Items: TypeObject, InArray: true, Depth: 2},
			"posts.comments.author":  {Type: TypeString, InArray: true, Categorical: true, Depth: 3},
			"posts.comments.created": {Type: TypeString, Format: "date-time", InArray: true, Depth: 3},
			"rating":                 {Type: TypeNumber, Depth: 1},
			"posts.likes":            {Type: TypeInteger, InArray: true, Depth: 2},
		}, ""},
	} {
		s := newShape(t, map[string]string{"document.shape": tc.shape}, constLen(100), 1)
		for path, want := range tc.want {
			got := pathByName(s.Paths(), path)
			got.Leaf, got.Array, got.Object, got.Presence, got.Path = false, false, false, 0, ""
			if got != want {
				t.Errorf("%s %s:\n got %+v\nwant %+v", tc.shape, path, got, want)
			}
		}
		if tc.top != "" && strings.Join(s.TopLevel(), ",") != tc.top {
			t.Errorf("%s: top level %v", tc.shape, s.TopLevel())
		}
		// Every path occurs in generated documents, with its type.
		r := NewRand()
		found := map[string]map[string]bool{}
		for k := range int64(300) {
			var m any
			dec := json.NewDecoder(bytes.NewReader(s.AppendDoc(nil, nil, k, r)))
			dec.UseNumber()
			if err := dec.Decode(&m); err != nil {
				t.Fatal(err)
			}
			collectTypes(m, "", found)
		}
		for _, p := range s.Paths() {
			types := found[p.Path]
			if !types[p.Type] {
				t.Errorf("%s %s: type %s never generated (saw %v)", tc.shape, p.Path, p.Type, types)
			}
			if p.Nullable != types[TypeNull] && p.Type != TypeNull {
				t.Errorf("%s %s: nullable %v, saw %v", tc.shape, p.Path, p.Nullable, types)
			}
		}
		if len(found) != len(s.Paths()) {
			t.Errorf("%s: %d paths generated, %d listed", tc.shape, len(found), len(s.Paths()))
		}
	}
}

// collectTypes records the JSON types seen at every path of v.
func collectTypes(v any, path string, out map[string]map[string]bool) {
	add := func(t string) {
		if out[path] == nil {
			out[path] = map[string]bool{}
		}
		out[path][t] = true
	}
	switch x := v.(type) {
	case map[string]any:
		if path != "" {
			add(TypeObject)
		}
		for k, c := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			collectTypes(c, p, out)
		}
	case []any:
		add(TypeArray)
		for _, c := range x {
			if m, ok := c.(map[string]any); ok {
				for k, cc := range m {
					collectTypes(cc, path+"."+k, out)
				}
			}
		}
	case string:
		add(TypeString)
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			add(TypeNumber)
		} else {
			add(TypeInteger)
		}
	case bool:
		add(TypeBoolean)
	case nil:
		add(TypeNull)
	}
}

func TestAppendValueMatchesPaths(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	for name, props := range shapeCases(t) {
		if strings.Contains(name, "1M") {
			continue
		}
		s := newShape(t, props, constLen(20), 1)
		for _, p := range s.Paths() {
			for range 20 {
				v := s.AppendValue(nil, p.Path, r)
				if !json.Valid(v) {
					t.Fatalf("%s %s: invalid %s", name, p.Path, v)
				}
				var x any
				dec := json.NewDecoder(bytes.NewReader(v))
				dec.UseNumber()
				_ = dec.Decode(&x)
				types := map[string]map[string]bool{}
				collectTypes(x, "", types)
				var got string
				for t := range types[""] {
					got = t
				}
				if _, isObj := x.(map[string]any); isObj {
					got = TypeObject
				}
				if got != p.Type && !(got == TypeNull && p.Nullable) && !(name == "sample" || name == "replay") {
					t.Fatalf("%s %s: value %s is %s, path says %s", name, p.Path, v, got, p.Type)
				}
			}
		}
		if v := s.AppendValue([]byte("x"), "no.such.path", r); string(v) != "xnull" {
			t.Errorf("%s: unknown path gave %s", name, v)
		}
	}
}

func TestZeroAllocations(t *testing.T) {
	for name, props := range shapeCases(t) {
		s := newShape(t, props, constLen(100), 1)
		r := NewRand()
		buf := make([]byte, 0, 4<<20)
		key := []byte("user6284781860667377211")
		k := int64(0)
		allocs := testing.AllocsPerRun(50, func() {
			buf = s.AppendDoc(buf[:0], key, k, r)
			k++
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per document", name, allocs)
		}
	}
}

func TestDistributions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		in       string
		lo, hi   int64
		mean     float64
		canonSTR string
	}{
		{"7", 7, 7, 7, "7"},
		{"constant:3", 3, 3, 3, "3"},
		{"uniform:1:100", 1, 100, 50.5, "uniform:1:100"},
		{" Zipfian:1:100 ", 1, 100, 0, "zipfian:1:100"},
	} {
		d, err := ParseDist(tc.in)
		if err != nil {
			t.Fatalf("%q: %v", tc.in, err)
		}
		if d.String() != tc.canonSTR {
			t.Errorf("%q: String() = %q", tc.in, d.String())
		}
		sum := 0.0
		const n = 100000
		for range n {
			v := d.Next(r)
			if v < tc.lo || v > tc.hi {
				t.Fatalf("%q: drew %d", tc.in, v)
			}
			sum += float64(v)
		}
		want := tc.mean
		if want == 0 {
			want = d.Mean()
		}
		if got := sum / n; math.Abs(got-want) > 0.02*want+0.01 {
			t.Errorf("%q: mean %.2f, want %.2f", tc.in, got, want)
		}
	}
	for _, bad := range []string{"", "x", "uniform:5", "uniform:9:1", "zipfian:0:1000000", "normal:1:2", "-3", "uniform:a:b"} {
		if _, err := ParseDist(bad); err == nil {
			t.Errorf("ParseDist(%q) succeeded", bad)
		}
	}
}

func TestParseSpec(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join(dir, "s.ndjson")
	if err := os.WriteFile(sample, []byte(`{"a":1}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := []map[string]string{
		{},
		{"document.shape": "COMPLEX", "document.depth": "4", "document.width": "2", "document.leaves": "0", "document.children": "3"},
		{"document.arrays": "2", "document.arraylength": "zipfian:1:100", "document.arrayitems": "scalar", "document.size": "2kB"},
		{"document.sample": sample, "document.size": "1MiB"},
		{"document.replay": sample, "document.keyfield": "id"},
		{"document.shape": "blog", "fieldcount": "3", "recordcount": "5"},
	}
	for _, p := range ok {
		if _, err := ParseSpec(p, nil, 10, "field"); err != nil {
			t.Errorf("ParseSpec(%v): %v", p, err)
		}
	}
	s, _ := ParseSpec(map[string]string{"document.size": "2kB", "document.arrays": "1", "document.arraylength": "uniform:1:5"}, nil, 10, "field")
	if s.Size != 2000 || s.ArrayLength.String() != "uniform:1:5" || s.ArrayItems != ItemsObject || s.Shape != ShapeFlat {
		t.Errorf("spec %+v", s)
	}
	if s, _ := ParseSpec(map[string]string{"document.sample": sample}, nil, 10, "field"); s.Shape != ShapeSample {
		t.Errorf("document.sample implies shape sample, got %q", s.Shape)
	}
	for _, tc := range []struct {
		props map[string]string
		want  []string // one line each
	}{
		{map[string]string{"document.shape": "tree"}, []string{`document.shape="tree": unknown value (want flat, complex, bookmarks, reviews, customer, blog, sample, replay)`}},
		{map[string]string{"document.depth": "x", "document.shape": "complex", "document.width": "0"},
			[]string{`document.depth="x": not an integer`, `document.width="0": out of range (1 to 1048576)`}},
		{map[string]string{"document.depth": "2"}, []string{`document.depth="2": applies only to document.shape=complex (is flat)`}},
		{map[string]string{"document.shape": "complex", "document.depth": "16", "document.children": "10"}, []string{`document.depth="16": complex documents of depth 16`}},
		{map[string]string{"document.arraylength": "uniform:5:1"}, []string{`document.arraylength="uniform:5:1": minimum 5 greater than maximum 1`, `document.arraylength="uniform:5:1": has no effect without document.arrays`}},
		{map[string]string{"document.shape": "reviews", "document.arrays": "2"}, []string{`document.arrays="2": applies only to document.shape=flat or complex (is reviews)`}},
		{map[string]string{"document.size": "big"}, []string{`document.size="big": not a size`}},
		{map[string]string{"document.size": "3TB"}, []string{`document.size="3TB": unknown unit "TB"`}},
		{map[string]string{"document.size": "10"}, []string{`document.size="10": out of range`}},
		{map[string]string{"document.sample": filepath.Join(dir, "none.ndjson")}, []string{`document.sample="` + filepath.Join(dir, "none.ndjson") + `": cannot read: no such file or directory`}},
		{map[string]string{"document.sample": sample, "document.replay": sample}, []string{`document.replay="` + sample + `": conflicts with document.sample`}},
		{map[string]string{"document.sample": sample, "document.shape": "blog"}, []string{`document.sample="` + sample + `": conflicts with document.shape=blog`}},
		{map[string]string{"document.shape": "replay"}, []string{`document.shape="replay": needs document.replay=FILE.ndjson`}},
		{map[string]string{"document.replay": sample, "document.size": "1000"}, []string{`document.size="1000": does not apply to document.replay`}},
		{map[string]string{"document.keyfield": "id"}, []string{`document.keyfield="id": applies only to document.replay`}},
		{map[string]string{"document.dept": "3"}, []string{`document.dept="3": unknown property`}},
		{map[string]string{"document.arrayitems": "list"}, []string{`document.arrayitems="list": unknown value (want object, scalar, sequence)`, `has no effect without document.arrays`}},
	} {
		_, err := ParseSpec(tc.props, nil, 10, "field")
		if err == nil {
			t.Errorf("ParseSpec(%v) succeeded", tc.props)
			continue
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != len(tc.want) {
			t.Errorf("ParseSpec(%v): %d problems, want %d:\n%v", tc.props, len(lines), len(tc.want), err)
			continue
		}
		for i, w := range tc.want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("ParseSpec(%v):\n got %s\nwant %s", tc.props, lines[i], w)
			}
		}
	}
	// Keys lists every property ParseSpec reads.
	for _, k := range Keys() {
		if !strings.HasPrefix(k, "document.") {
			t.Errorf("key %s", k)
		}
		_, err := ParseSpec(map[string]string{k: "?"}, nil, 10, "field")
		if err != nil && strings.Contains(err.Error(), "unknown property") {
			t.Errorf("%s: %v", k, err)
		}
	}
}

func TestSizeErrors(t *testing.T) {
	spec, err := ParseSpec(map[string]string{"document.shape": "blog", "document.size": "100"}, nil, 10, "field")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(spec, 1); err == nil || !strings.Contains(err.Error(), "document.size=100: blog documents need about") {
		t.Errorf("New(blog at 100 bytes): %v", err)
	}
}

func ExampleNew() {
	spec, err := ParseSpec(map[string]string{"document.shape": "reviews"}, nil, 10, "field")
	if err != nil {
		panic(err)
	}
	s, err := New(spec, 1)
	if err != nil {
		panic(err)
	}
	r := NewRand()
	buf := s.AppendDoc(nil, []byte("user1"), 1, r)
	var m map[string]any
	_ = json.Unmarshal(buf, &m)
	fmt.Println(len(m), s.TopLevel()[2])
	// Output: 12 review_rating
}

// TestUpdatedValuesKeepTheSize: under document.size a value written by an
// update is as long, on average, as the loaded documents' value at the same
// path, so an update workload does not shrink the documents a size sweep
// measures (it once rewrote 4 kB documents to their natural ≈ 570 bytes).
func TestUpdatedValuesKeepTheSize(t *testing.T) {
	cases := map[string]map[string]string{
		"flat 4 kB":     {"document.size": "4096"},
		"flat 1 MB":     {"document.size": "1MB"},
		"flat 300 B":    {"document.size": "300"},
		"complex 8 kB":  {"document.shape": "complex", "document.size": "8kB"},
		"flat natural":  {},
		"reviews 20 kB": {"document.shape": "reviews", "document.size": "20000"},
	}
	for name, props := range cases {
		s := newShape(t, props, uniformLen{1, 100}, 1)
		var path string
		for _, p := range s.Paths() {
			if p.Leaf && p.Type == TypeString && p.Presence == 1 && !p.InArray {
				path = p.Path
				break
			}
		}
		r := NewRand()
		var loaded, updated float64
		const n = 200
		var buf []byte
		for k := range int64(n) {
			buf = s.AppendDoc(buf[:0], nil, k, r)
			var d map[string]any
			if err := json.Unmarshal(buf, &d); err != nil {
				t.Fatal(err)
			}
			var v any = d
			for _, seg := range strings.Split(path, ".") {
				v = v.(map[string]any)[seg]
			}
			loaded += float64(len(v.(string)))
		}
		rr := rand.New(rand.NewPCG(1, 2))
		for range n {
			buf = s.AppendValue(buf[:0], path, rr)
			var v string
			if err := json.Unmarshal(buf, &v); err != nil {
				t.Fatalf("%s: %s: %v", name, buf, err)
			}
			updated += float64(len(v))
		}
		if ratio := updated / loaded; ratio < 0.85 || ratio > 1.15 {
			t.Errorf("%s: %s: updated values average %.0f bytes, loaded %.0f (%.2f×)", name, path, updated/n, loaded/n, ratio)
		}
	}
}
