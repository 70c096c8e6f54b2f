package dbtest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
)

// mixDoc is document i of the query mix's data set, planted under key
// mixKey(i): 24 documents whose scores are distinct (a range's page has one
// order everywhere) and whose other members repeat with periods 2 to 6.
func mixDoc(i int) string {
	var tags []string
	for _, t := range []struct {
		every int
		tag   string
	}{{2, "x"}, {3, "y"}, {5, "z"}} {
		if i%t.every == 0 {
			tags = append(tags, fmt.Sprintf("%q", t.tag))
		}
	}
	items := fmt.Sprintf(`{"term":"t%d","n":%d}`, i%4, i)
	if i%6 == 1 {
		items += fmt.Sprintf(`,{"term":"t9","n":%d}`, i+100)
	}
	return fmt.Sprintf(`{"name":%q,"grp":%q,"score":%d,"tags":[%s],"items":[%s],"address":{"city":"c%d"},"flag":false}`,
		[]string{"ann", "bob", "cy", "dee", "eve", "fay"}[i%6], string("abc"[i%3]), (i*7)%24+100,
		strings.Join(tags, ","), items, i%5)
}

func mixKey(i int) string { return fmt.Sprintf("m%02d", i) }

const mixDocs = 24

// mixCase is one query of the mix and its answer, the same on every
// backend: the keys of the documents found (in order where ordered), or
// for an aggregate the number of groups.
type mixCase struct {
	name    string
	q       db.Query
	keys    []string // nil: an aggregate, groups counts
	groups  int
	ordered bool
}

// mixCases is a query of every kind on the mix's data set. The table also
// holds the suite's user documents, which have none of these members (one
// more group, of no value, for an aggregate).
var mixCases = []mixCase{
	{name: "field", q: db.Query{Kind: db.QueryField, Path: "name", Value: []byte(`"cy"`)},
		keys: []string{"m02", "m08", "m14", "m20"}},
	{name: "field of a number", q: db.Query{Kind: db.QueryField, Path: "score", Value: []byte(`115`)},
		keys: []string{"m09"}},
	{name: "projection", q: db.Query{Kind: db.QueryField, Path: "name", Value: []byte(`"eve"`), Fields: []string{"name", "address.city"}},
		keys: []string{"m04", "m10", "m16", "m22"}},
	{name: "contains in an array", q: db.Query{Kind: db.QueryContains, Path: "items", Value: []byte(`[{"term":"t2"}]`)},
		keys: []string{"m02", "m06", "m10", "m14", "m18", "m22"}},
	{name: "contains in the document", q: db.Query{Kind: db.QueryContains, Path: "", Value: []byte(`{"address":{"city":"c3"}}`)},
		keys: []string{"m03", "m08", "m13", "m18", "m23"}},
	{name: "array", q: db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"z"`)},
		keys: []string{"m00", "m05", "m10", "m15", "m20"}},
	{name: "array, more", q: db.Query{Kind: db.QueryArray, Path: "tags", Value: []byte(`"y"`)},
		keys: []string{"m00", "m03", "m06", "m09", "m12", "m15", "m18", "m21"}},
	{name: "range", q: db.Query{Kind: db.QueryRange, Path: "score", Value: []byte(`118`), Limit: 4},
		keys: []string{"m06", "m13", "m20", "m03"}, ordered: true},
	{name: "range page", q: db.Query{Kind: db.QueryRange, Path: "score", Value: []byte(`118`), Limit: 2, Offset: 4},
		keys: []string{"m10", "m17"}, ordered: true},
	{name: "aggregate count", q: db.Query{Kind: db.QueryAggregate, Path: "grp", Func: "count"}, groups: 4},
	{name: "aggregate avg", q: db.Query{Kind: db.QueryAggregate, Path: "grp", AggPath: "score", Func: "avg"}, groups: 4},
	{name: "descendant in arrays", q: db.Query{Kind: db.QueryDescendant, Path: "items.term", Value: []byte(`"t9"`)},
		keys: []string{"m01", "m07", "m13", "m19"}},
	{name: "descendant nested", q: db.Query{Kind: db.QueryDescendant, Path: "address.city", Value: []byte(`"c4"`)},
		keys: []string{"m04", "m09", "m14", "m19"}},
}

// mix checks that a query mix of every kind, and an update of one path,
// give the same result rows on every backend: the same keys, the same
// counts. A descendant query MongoDB (or a relational layout) refuses as
// not supported is logged, not failed.
func (x *suite) mix(t *testing.T) {
	ctx, s := x.ctx, x.s
	t.Run("query mix gives the same rows everywhere", func(t *testing.T) {
		q, ok := s.(db.Querier)
		if !ok {
			t.Skip("the backend has no secondary queries")
		}
		for i := range mixDocs {
			if err := s.Insert(ctx, []byte(mixKey(i)), []byte(mixDoc(i))); err != nil {
				t.Fatal(err)
			}
		}
		defer func() {
			for i := range mixDocs {
				s.Delete(ctx, []byte(mixKey(i)))
			}
		}()
		for _, tc := range mixCases {
			checkMix(ctx, t, x.store, q, tc)
		}
		// An update of one path, then the documents it changed.
		for _, k := range []string{"m05", "m11"} {
			if err := s.Update(ctx, []byte(k), &db.Update{Mode: db.Partial, Paths: []string{"flag"}, Values: [][]byte{[]byte("true")}}); err != nil {
				t.Fatalf("update %s: %v", k, err)
			}
		}
		checkMix(ctx, t, x.store, q, mixCase{name: "after an update of one path",
			q: db.Query{Kind: db.QueryField, Path: "flag", Value: []byte(`true`)}, keys: []string{"m05", "m11"}})
	})
}

func checkMix(ctx context.Context, t *testing.T, store db.Store, q db.Querier, tc mixCase) {
	t.Helper()
	var keys []string
	tc.q.Keys = &keys
	n, err := q.Query(ctx, &tc.q)
	var unsupported *db.ErrNotSupported
	if errors.As(err, &unsupported) && (tc.q.Kind == db.QueryDescendant || nullsDropped(store)) {
		t.Logf("%s: %v", tc.name, err)
		return
	}
	if err != nil {
		t.Errorf("%s: %v", tc.name, err)
		return
	}
	if tc.keys == nil {
		if n != tc.groups {
			t.Errorf("%s: %d groups, want %d", tc.name, n, tc.groups)
		}
		return
	}
	if !tc.ordered {
		slices.Sort(keys)
	}
	if n != len(tc.keys) || !slices.Equal(keys, tc.keys) {
		t.Errorf("%s: %d rows, keys %v; want %v", tc.name, n, keys, tc.keys)
	}
}
