package document

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

type constLen int64

func (c constLen) Next(*rand.Rand) int64 { return int64(c) }

// The references were printed by Java 17 running YCSB 0.17's
// CoreWorkload.buildDeterministicValue algorithm (StringBuilder + hashCode).
func TestAppendDeterministicMatchesYCSB(t *testing.T) {
	for _, tc := range []struct {
		key, field string
		size       int
		want       string
	}{
		{"user6284781860667377211", "field0", 100, "user6284781860667377211:field0:-56807877:2032869390:-165488160:1762371712:-169193395:-1039977118:-10"},
		{"user1", "field9", 37, "user1:field9:-1268390937:701431326:16"},
		{"k", "f", 5, "k:f:3"},
	} {
		got := string(AppendDeterministic(nil, []byte(tc.key), tc.field, tc.size))
		if got != tc.want {
			t.Errorf("AppendDeterministic(%q, %q, %d) = %q, want %q", tc.key, tc.field, tc.size, got, tc.want)
		}
	}
}

func TestFlatIsPureFunctionOfSeedAndKey(t *testing.T) {
	names := []string{"field0", "field1", "field2"}
	a := NewFlat(names, constLen(50), false, 7)
	b := NewFlat(names, constLen(50), false, 7)
	ra, rb := NewRand(), NewRand()
	d1 := a.AppendDoc(nil, []byte("user1"), a.ForKey(ra, 1))
	_ = a.AppendDoc(nil, []byte("user2"), a.ForKey(ra, 2)) // other keys in between change nothing
	d2 := b.AppendDoc(nil, []byte("user1"), b.ForKey(rb, 1))
	if string(d1) != string(d2) {
		t.Fatalf("same seed and key gave different documents:\n%s\n%s", d1, d2)
	}
	var m map[string]string
	if err := json.Unmarshal(d1, &m); err != nil {
		t.Fatalf("not JSON: %v: %s", err, d1)
	}
	if len(m) != 3 || len(m["field1"]) != 50 {
		t.Fatalf("want 3 fields of 50 bytes, got %v", m)
	}
	c := NewFlat(names, constLen(50), false, 8)
	if d3 := c.AppendDoc(nil, []byte("user1"), c.ForKey(NewRand(), 1)); string(d3) == string(d1) {
		t.Fatal("another seed gave the same document")
	}
}

func TestAppendFieldsAndIntegrity(t *testing.T) {
	f := NewFlat([]string{"a", "b"}, constLen(20), true, 1)
	got := string(f.AppendFields(nil, []byte("user9"), []int{1}, NewRand().r))
	want := `{"b":"` + string(AppendDeterministic(nil, []byte("user9"), "b", 20)) + `"}`
	if got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}

func BenchmarkAppendDoc(b *testing.B) {
	names := []string{"field0", "field1", "field2", "field3", "field4", "field5", "field6", "field7", "field8", "field9"}
	f := NewFlat(names, constLen(100), false, 1)
	r := NewRand()
	dst := make([]byte, 0, 4096)
	key := []byte("user6284781860667377211")
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		dst = f.AppendDoc(dst[:0], key, f.ForKey(r, int64(i)))
	}
}

func BenchmarkAppendFields(b *testing.B) {
	f := NewFlat([]string{"field0", "field1"}, constLen(100), false, 1)
	r := NewRand()
	dst := make([]byte, 0, 4096)
	key := []byte("user6284781860667377211")
	fields := []int{1}
	b.ReportAllocs()
	for b.Loop() {
		dst = f.AppendFields(dst[:0], key, fields, r.r)
	}
}

func BenchmarkAppendDeterministic(b *testing.B) {
	dst := make([]byte, 0, 256)
	key := []byte("user6284781860667377211")
	b.ReportAllocs()
	for b.Loop() {
		dst = AppendDeterministic(dst[:0], key, "field3", 100)
	}
}
