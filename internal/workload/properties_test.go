package workload

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/docbench/docbench/workloads"
)

func TestLoadSyntax(t *testing.T) {
	src := "# comment\n" +
		"  ! another comment\n" +
		"\n" +
		"a=1\n" +
		"b : two words \n" +
		"c   3\n" +
		"  d\t=\t4\n" +
		"e=\n" +
		"f=x\\\n" +
		"    y\\\n" +
		"  z\n" +
		"g\\=h=\\u0041\\t!\n" +
		"a=override\n"
	p := NewProperties()
	if err := p.Load(strings.NewReader(src), "test.properties"); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "override", "b": "two words", "c": "3", "d": "4", "e": "", "f": "xyz", "g=h": "A\t!"}
	for k, v := range want {
		if got, ok := p.Get(k); !ok || got != v {
			t.Errorf("Get(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	if got := p.Keys(); !slices.Equal(got, []string{"a", "b", "c", "d", "e", "f", "g=h"}) {
		t.Errorf("Keys() = %v", got)
	}
	for k, s := range map[string]string{"a": "test.properties:13", "b": "test.properties:5", "f": "test.properties:9", "g=h": "test.properties:12"} {
		if got := p.Source(k); got != s {
			t.Errorf("Source(%q) = %q, want %q", k, got, s)
		}
	}
	if p.Source("nope") != "" {
		t.Error("Source of unset key")
	}
	if m := p.Map(); len(m) != 7 || m["c"] != "3" {
		t.Errorf("Map() = %v", m)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"a=1\n=2\n", "f:2: malformed line \"=2\": empty property name"},
		{"a=1\n\nrecordcount\n", "f:3: malformed line \"recordcount\": want key=value"},
		{"a=\\u00zz\n", "f:1: malformed value of \"a\""},
		{"a=\\u12\n", "f:1: malformed value"},
	} {
		err := NewProperties().Load(strings.NewReader(tc.src), "f")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%q) error = %v, want %q", tc.src, err, tc.want)
		}
	}
}

func TestLoadFile(t *testing.T) {
	p := NewProperties()
	if err := p.LoadFile("workloada"); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Get("readproportion"); v != "0.5" {
		t.Errorf("readproportion = %q", v)
	}
	if s := p.Source("requestdistribution"); !strings.HasPrefix(s, "workloads/workloada:") {
		t.Errorf("source %q", s)
	}
	b, _ := workloads.Lookup("workloada")
	line := slices.Index(strings.Split(string(b), "\n"), "requestdistribution=zipfian") + 1
	if s := p.Source("requestdistribution"); s != "workloads/workloada:"+strconv.Itoa(line) {
		t.Errorf("source %q, want line %d", s, line)
	}

	// The YCSB-style path works without the file on disk.
	p = NewProperties()
	if err := p.LoadFile("workloads/workloade"); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Get("maxscanlength"); v != "100" {
		t.Errorf("maxscanlength = %q", v)
	}

	// A path that exists wins over a built-in name.
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile(filepath.Join(dir, "workloada"), []byte("recordcount=7\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p = NewProperties()
	if err := p.LoadFile("workloada"); err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Get("recordcount"); v != "7" || p.Source("recordcount") != "workloada:1" {
		t.Errorf("recordcount = %q from %q", v, p.Source("recordcount"))
	}

	err := NewProperties().LoadFile("workloadz")
	want := `workload file "workloadz": no such file (built-ins: workloada, workloadb, workloadc, workloadd, workloade, workloadf)`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %s", err, want)
	}
}

func TestParseOverride(t *testing.T) {
	p := NewProperties()
	for _, kv := range []string{"recordcount=10", " table =a=b", "e="} {
		if err := p.ParseOverride(kv); err != nil {
			t.Fatal(err)
		}
	}
	if v, _ := p.Get("table"); v != "a=b" || p.Source("table") != "-p" {
		t.Errorf("table = %q from %q", v, p.Source("table"))
	}
	if v, ok := p.Get("e"); !ok || v != "" {
		t.Errorf("e = %q %v", v, ok)
	}
	for _, bad := range []string{"recordcount", "=5", " =5", ""} {
		if err := p.ParseOverride(bad); err == nil {
			t.Errorf("ParseOverride(%q) succeeded", bad)
		}
	}
	if err := p.ParseOverrideFrom("threadcount=4", "--threads"); err != nil || p.Source("threadcount") != "--threads" {
		t.Errorf("ParseOverrideFrom: %v %q", err, p.Source("threadcount"))
	}
}

func FuzzLoad(f *testing.F) {
	for _, name := range workloads.Names() {
		b, _ := workloads.Lookup(name)
		f.Add(b)
	}
	f.Add([]byte("a=1\\\n b\\u0041\n!c\n#d\nx : y\\\n"))
	f.Add([]byte("=\n\\\\u\\u\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := NewProperties()
		if err := p.Load(strings.NewReader(string(data)), "fuzz"); err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz:") {
				t.Fatalf("error does not name the source: %v", err)
			}
			return
		}
		keys := p.Keys()
		if !slices.IsSorted(keys) || len(keys) != p.Len() {
			t.Fatalf("keys %q", keys)
		}
		// Every parsed entry round-trips through Set/Get into a new store.
		q := NewProperties()
		for _, k := range keys {
			if k == "" {
				t.Fatal("empty key parsed")
			}
			v, ok := p.Get(k)
			if !ok || !strings.HasPrefix(p.Source(k), "fuzz:") {
				t.Fatalf("Get(%q) = %q, %v, source %q", k, v, ok, p.Source(k))
			}
			q.Set(k, v, p.Source(k))
			if w, _ := q.Get(k); w != v {
				t.Fatalf("round trip of %q: %q != %q", k, w, v)
			}
		}
	})
}

func FuzzParseOverride(f *testing.F) {
	f.Add("recordcount=1000")
	f.Add("=x")
	f.Add("a==b")
	f.Add(" k = v ")
	f.Fuzz(func(t *testing.T, kv string) {
		p := NewProperties()
		err := p.ParseOverride(kv)
		key, value, ok := strings.Cut(kv, "=")
		key = strings.TrimSpace(key)
		if !ok || key == "" {
			if err == nil {
				t.Fatalf("ParseOverride(%q) accepted", kv)
			}
			return
		}
		if err != nil {
			t.Fatalf("ParseOverride(%q): %v", kv, err)
		}
		if got, ok := p.Get(key); !ok || got != value || p.Source(key) != "-p" {
			t.Fatalf("Get(%q) = %q, %v", key, got, ok)
		}
		if _, err := ParseConfig(p, Known{}); err != nil && err.Error() == "" {
			t.Fatal("empty error")
		}
	})
}
