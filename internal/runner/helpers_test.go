package runner

import (
	"encoding/json"
	"reflect"
	"sort"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/workload"
)

func docRand() *document.Rand { return document.NewRand() }

// diffPaths returns the paths (objects descended, arrays compared whole)
// whose values differ between two JSON documents.
func diffPaths(t *testing.T, a, b []byte) []string {
	t.Helper()
	var x, y map[string]any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(prefix string, x, y map[string]any)
	walk = func(prefix string, x, y map[string]any) {
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		for k := range keys {
			xm, xok := x[k].(map[string]any)
			ym, yok := y[k].(map[string]any)
			if xok && yok {
				walk(prefix+k+".", xm, ym)
			} else if !reflect.DeepEqual(x[k], y[k]) {
				out = append(out, prefix+k)
			}
		}
	}
	walk("", x, y)
	sort.Strings(out)
	return out
}

// sameTopLevel reports whether two documents have the same top-level fields.
func sameTopLevel(t *testing.T, a, b []byte) bool {
	var x, y map[string]json.RawMessage
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil || len(x) != len(y) {
		return false
	}
	for k := range x {
		if _, ok := y[k]; !ok {
			return false
		}
	}
	return true
}

// newDocOps builds the workload and document operations of a workload file (or built-in
// name) with props on top, without a store.
func newDocOps(t testing.TB, file string, props map[string]string) (*workload.Workload, *DocOps) {
	t.Helper()
	p := workload.NewProperties()
	if err := p.LoadFile(file); err != nil {
		t.Fatal(err)
	}
	for k, v := range props {
		p.Set(k, v, "test")
	}
	keys, prefixes := db.Known()
	cfg, err := workload.ParseConfig(p, workload.Known{Keys: append(keys, document.Keys()...), Prefixes: prefixes})
	if err != nil {
		t.Fatal(err)
	}
	wl, err := workload.New(cfg, 1)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := document.ParseSpec(cfg.Props, wl.FieldLengths(), cfg.FieldCount, cfg.FieldNamePrefix)
	if err != nil {
		t.Fatal(err)
	}
	shape, err := document.New(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	docOps, err := NewDocOps(wl, shape, 1)
	if err != nil {
		t.Fatal(err)
	}
	return wl, docOps
}
