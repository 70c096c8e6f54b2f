package mongodb

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestJSONToNativeBSONTypes(t *testing.T) {
	src := []byte(`{"s":"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00","i":1,"neg":-2147483648,"big":5000000000,"huge":123456789012345678901234,
		"f":1.5,"e":1e3,"t":true,"fa":false,"n":null,"o":{"a":[1,"b",{"c":[]}]},"empty":{}}`)
	b, err := appendJSONDocument(nil, src)
	if err != nil {
		t.Fatal(err)
	}
	if err := bson.Raw(b).Validate(); err != nil {
		t.Fatalf("invalid BSON: %v", err)
	}
	var got bson.D
	if err := bson.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := bson.D{
		{Key: "s", Value: "x\"\\/\b\f\n\r\té😀"},
		{Key: "i", Value: int32(1)},
		{Key: "neg", Value: int32(-2147483648)},
		{Key: "big", Value: int64(5000000000)},
		{Key: "huge", Value: 123456789012345678901234.0},
		{Key: "f", Value: 1.5},
		{Key: "e", Value: 1000.0},
		{Key: "t", Value: true},
		{Key: "fa", Value: false},
		{Key: "n", Value: nil},
		{Key: "o", Value: bson.D{{Key: "a", Value: bson.A{int32(1), "b", bson.D{{Key: "c", Value: bson.A{}}}}}}},
		{Key: "empty", Value: bson.D{}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %#v\nwant %#v", got, want)
	}
}

func TestJSONToBSONErrors(t *testing.T) {
	for _, src := range []string{``, `[]`, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `{"a":01}`, `{"a":1.}`, `{"a":tru}`,
		`{"a":"\x"}`, `{"a":"\u12"}`, "{\"a\":\"\x01\"}", `{"a\u0000":1}`, `{"a":1} x`, `{"a":1e400}`, `{"a":-1e999}`, strings.Repeat(`{"a":`, 300) + "1" + strings.Repeat("}", 300)} {
		if b, err := appendJSONDocument(nil, []byte(src)); err == nil {
			t.Errorf("%.40q: no error, BSON %x", src, b)
		}
	}
}

func TestBSONToJSON(t *testing.T) {
	oid, _ := bson.ObjectIDFromHex("0123456789abcdef01234567")
	d := bson.D{
		{Key: "_id", Value: "k"},
		{Key: "s", Value: "a\"b\\c\n\x01<é>"},
		{Key: "i32", Value: int32(-5)},
		{Key: "i64", Value: int64(1) << 40},
		{Key: "f", Value: 2.5},
		{Key: "whole", Value: 3.0},
		{Key: "tiny", Value: 1e-9},
		{Key: "b", Value: true},
		{Key: "n", Value: nil},
		{Key: "oid", Value: oid},
		{Key: "bin", Value: bson.Binary{Data: []byte("hi")}},
		{Key: "arr", Value: bson.A{int32(1), bson.D{{Key: "x", Value: "y"}}, bson.A{}}},
	}
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := appendDocJSON([]byte("pre"), raw, "_id")
	if err != nil {
		t.Fatal(err)
	}
	want := `pre{"s":"a\"b\\c\n\u0001<é>","i32":-5,"i64":1099511627776,"f":2.5,"whole":3,"tiny":1e-9,"b":true,"n":null,` +
		`"oid":"0123456789abcdef01234567","bin":"aGk=","arr":[1,{"x":"y"},[]]}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestLookup(t *testing.T) {
	raw, _ := bson.Marshal(bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: bson.A{"x", bson.D{{Key: "c", Value: int32(7)}}}}}}})
	for path, want := range map[string]string{"a.b.1.c": "7", "a.b.0": `"x"`, "a.b": `["x",{"c":7}]`, "a.z": "", "a.b.0.c": "", "q": ""} {
		typ, v, ok := lookup(raw, strings.Split(path, "."))
		got := ""
		if ok {
			b, err := appendValueJSON(nil, typ, v)
			if err != nil {
				t.Fatal(err)
			}
			got = string(b)
		}
		if got != want {
			t.Errorf("lookup %s = %q, want %q", path, got, want)
		}
	}
}

func TestContainsFilter(t *testing.T) {
	s := newSession(nil)
	for _, c := range []struct{ path, value, want string }{
		{"", `{"address":{"zip":"12345"}}`, `{"address.zip":"12345"}`},
		{"address", `{"zip":"12345","city":"c"}`, `{"$and":[{"address.zip":"12345"},{"address.city":"c"}]}`},
		{"orders", `[{"sku":"x","qty":2}]`, `{"orders":{"$elemMatch":{"$and":[{"sku":"x"},{"qty":2}]}}}`},
		{"orders", `[{"item":{"sku":"x"}}]`, `{"orders":{"$elemMatch":{"item.sku":"x"}}}`},
		{"tags", `["a","b"]`, `{"$and":[{"tags":"a"},{"tags":"b"}]}`},
		{"", `{"tags":["a"],"n":3}`, `{"$and":[{"tags":"a"},{"n":3}]}`},
		{"n", `3`, `{"n":3}`},
		{"", `{}`, `{}`},
		{"tags", `[]`, `{"tags":{"$type":"array"}}`},
	} {
		f, err := s.containsFilter(nil, c.path, []byte(c.value))
		if err != nil {
			t.Errorf("%s %s: %v", c.path, c.value, err)
			continue
		}
		if err := bson.Raw(f).Validate(); err != nil {
			t.Errorf("%s %s: invalid BSON: %v", c.path, c.value, err)
			continue
		}
		got, _ := appendDocJSON(nil, f, "")
		if string(got) != c.want {
			t.Errorf("contains %q at %q = %s, want %s", c.value, c.path, got, c.want)
		}
	}
	if _, err := s.containsFilter(nil, "", []byte(`[1]`)); err == nil {
		t.Error("array fragment for the whole document accepted")
	}
}

// FuzzJSONRoundTrip: JSON → BSON → JSON keeps the meaning (as encoding/json
// reads it), and the converter accepts exactly the JSON objects
// encoding/json accepts.
func FuzzJSONRoundTrip(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1}`, `{"a":[1,2.5,"x",{"b":null}],"c":true}`, `{"s":"\ud83d\ude00\u00e9\n"}`,
		`{"n":-0,"m":1e400,"k":-9223372036854775808,"l":18446744073709551616}`, `{"a":"\ud800"}`, `[1]`, `{"a":1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		var want any
		jsonErr := json.Unmarshal(src, &want)
		_, isObject := want.(map[string]any)
		b, err := appendJSONDocument(nil, src)
		if err != nil {
			if jerr, ok := err.(*jsonError); ok && (jerr.msg == "nested too deeply" || jerr.msg == "member name contains NUL") {
				return
			}
			if jsonErr == nil && isObject {
				t.Fatalf("%q: encoding/json accepts, we fail: %v", src, err)
			}
			return
		}
		if jsonErr != nil || !isObject {
			t.Fatalf("%q: encoding/json says %v (object %v), we accept", src, jsonErr, isObject)
		}
		if err := bson.Raw(b).Validate(); err != nil {
			t.Fatalf("%q: invalid BSON: %v", src, err)
		}
		back, err := appendDocJSON(nil, b, "")
		if err != nil {
			t.Fatalf("%q: BSON to JSON: %v", src, err)
		}
		var got any
		if err := json.Unmarshal(back, &got); err != nil {
			t.Fatalf("%q → %q: %v", src, back, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q → %q: meaning changed", src, back)
		}
	})
}

// ycsbDoc is a YCSB document: 10 fields of 100 characters (1 KB).
func ycsbDoc() []byte {
	m := map[string]string{}
	for i := range 10 {
		m[fmt.Sprintf("field%d", i)] = strings.Repeat(string(rune('a'+i)), 100)
	}
	b, _ := json.Marshal(m)
	return b
}

const nestedDoc = `{"name":"Ada Lovelace","age":36,"score":98.25,"active":true,"address":{"street":"12 St James's Square",` +
	`"zip":"12345","geo":{"lat":51.5074,"lon":-0.1357}},"tags":["math","poetry","engines"],` +
	`"orders":[{"sku":"A-1","qty":2,"price":9.99},{"sku":"B-7","qty":1,"price":120.5}],"note":"line\nbreak \"quoted\" \u00e9"}`

func BenchmarkJSONToBSON(b *testing.B) {
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"ycsb-1KB", ycsbDoc()}, {"nested", []byte(nestedDoc)}} {
		b.Run(c.name, func(b *testing.B) {
			key := []byte("user6284781860667377211")
			var buf []byte
			b.ReportAllocs()
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				var err error
				if buf, err = appendDocument(buf[:0], key, c.doc); err != nil {
					b.Fatal(err)
				}
			}
		})
		// The reflection-based first step the brief allows, for comparison.
		b.Run(c.name+"/UnmarshalExtJSON", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(c.doc)))
			for b.Loop() {
				var d bson.D
				if err := bson.UnmarshalExtJSON(c.doc, false, &d); err != nil {
					b.Fatal(err)
				}
				if _, err := bson.Marshal(append(bson.D{{Key: "_id", Value: "user6284781860667377211"}}, d...)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkBSONToJSON(b *testing.B) {
	for _, c := range []struct {
		name string
		doc  []byte
	}{{"ycsb-1KB", ycsbDoc()}, {"nested", []byte(nestedDoc)}} {
		raw, err := appendDocument(nil, []byte("user1"), c.doc)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name, func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			b.SetBytes(int64(len(raw)))
			for b.Loop() {
				if buf, err = appendDocJSON(buf[:0], raw, "_id"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	raw, _ := appendDocument(nil, []byte("user1"), []byte(nestedDoc))
	p := newSession(nil).projectionFor([]string{"address.zip", "address.geo.lat", "orders.1.sku", "age"})
	b.Run("projection", func(b *testing.B) {
		var buf []byte
		var err error
		b.ReportAllocs()
		for b.Loop() {
			if buf, err = appendProjected(buf[:0], raw, p); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestProjectedPaths(t *testing.T) {
	got := projectedPaths([]string{"orders.0.sku", "address.zip", "orders.1.qty", "address", "n", "a.b.2", "x.10y"})
	want := []string{"a.b", "address", "n", "orders", "x.10y"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("projectedPaths = %q, want %q", got, want)
	}
}

// The JSON-to-BSON encoder is on the per-operation path: into a buffer of
// its working size it allocates nothing. CI fails when this regresses.
func TestJSONToBSONAllocatesNothing(t *testing.T) {
	key := []byte("user6284781860667377211")
	for name, d := range map[string][]byte{"ycsb-1KB": ycsbDoc(), "nested": []byte(nestedDoc)} {
		buf, err := appendDocument(nil, key, d)
		if err != nil {
			t.Fatal(err)
		}
		if a := testing.AllocsPerRun(1000, func() { buf, _ = appendDocument(buf[:0], key, d) }); a != 0 {
			t.Errorf("%s: appendDocument allocates %.2f times per document; want 0", name, a)
		}
	}
}
