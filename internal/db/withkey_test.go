package db

import (
	"encoding/json"
	"testing"
)

func TestAppendWithKey(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"a":1,"b":[true]}`, `{"YCSB_KEY":"user1","a":1,"b":[true]}`},
		{`{}`, `{"YCSB_KEY":"user1"}`},
		{`{"a":{}}`, `{"YCSB_KEY":"user1","a":{}}`},
	} {
		got := AppendWithKey([]byte("prefix"), []byte("user1"), []byte(tc.doc))
		if string(got) != "prefix"+tc.want {
			t.Errorf("AppendWithKey(%s) = %s, want %s", tc.doc, got, tc.want)
		}
		if !json.Valid(got[len("prefix"):]) {
			t.Errorf("AppendWithKey(%s) = %s: not JSON", tc.doc, got)
		}
	}
	buf := make([]byte, 0, 256)
	key, doc := []byte("user12345"), []byte(`{"field0":"xxxxxxxxxx"}`)
	if a := testing.AllocsPerRun(1000, func() { buf = AppendWithKey(buf[:0], key, doc) }); a != 0 {
		t.Fatalf("AppendWithKey allocates %v times per call into a buffer of room", a)
	}
}

func BenchmarkAppendWithKey(b *testing.B) {
	buf := make([]byte, 0, 256)
	key, doc := []byte("user12345"), []byte(`{"field0":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)
	b.ReportAllocs()
	for b.Loop() {
		buf = AppendWithKey(buf[:0], key, doc)
	}
}
