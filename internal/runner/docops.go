package runner

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/workload"
)

// DocOps is what a phase does to documents: their shape, and which parts reads,
// updates and queries touch. It is built once, before the workers start, and
// holds everything the per-operation path draws from (projections, field
// sets, quoted names, queries with predicate values taken from the data), so
// that path allocates nothing.
type DocOps struct {
	Shape document.Shape
	raw   rawMean        // RawDocSize's last answer: a capacity search's trials share it
	flat  *document.Flat // plain flat documents: YCSB's (deterministic) values
	cfg   *workload.Config

	readSets  [][]string // projections; a nil entry reads the whole document
	updMode   db.UpdateMode
	updSets   []fieldSet
	queries   []db.Query // the query with each predicate value of the pool
	queryName string
	mix       []mixOp // querymix: the named queries, in the file's order
	mixTotal  float64 // their proportions' sum

	stmtSQL    string // statement.sql
	stmtName   string
	stmtSetup  []string
	stmtParams []param

	scripts     []script // statement.file
	scriptTotal int      // their weights' sum

	schema db.Schema
	paths  map[string]document.PathInfo
	writes bool // the run rewrites existing documents
	// Notes tell the reader what the operations lack (an unindexed query).
	Notes []string
}

// fieldSet is the fields (merge) or paths (partial) one update writes.
type fieldSet struct {
	paths  []string
	quoted [][]byte // `"name":` for merge documents
}

// queryPoolSize is how many documents predicate values are drawn from.
const queryPoolSize = 256

// NewDocOps checks the workload's document operations against the shape and
// prepares them. seed makes predicate values reproducible.
func NewDocOps(wl *workload.Workload, shape document.Shape, seed uint64) (*DocOps, error) {
	cfg := wl.Config()
	o := &DocOps{Shape: shape, flat: document.FlatOf(shape), cfg: cfg, paths: map[string]document.PathInfo{}}
	for _, pi := range shape.Paths() {
		o.paths[pi.Path] = pi
	}
	d := cfg.Doc
	d.ReadPath, d.UpdatePath = o.resolve(d.ReadPath), o.resolve(d.UpdatePath)
	// Under dataintegrity, reads of other shapes than YCSB's flat records
	// compare with the regenerated document: exactly while nothing rewrites
	// documents, by JSON type once updates may have changed values.
	o.writes = cfg.UpdateProportion > 0 || cfg.ReadModifyWriteProportion > 0
	top := shape.TopLevel()

	// Reads.
	switch {
	case d.ReadPath != "":
		if err := o.checkPath("readpath", d.ReadPath); err != nil {
			return nil, err
		}
		o.readSets = [][]string{{d.ReadPath}}
	case d.ReadFields > 0 || d.ReadFieldsPct > 0:
		n := d.ReadFields
		if d.ReadFieldsPct > 0 {
			n = int(math.Ceil(d.ReadFieldsPct / 100 * float64(len(top))))
		}
		o.readSets = windows(top, min(max(n, 1), len(top)))
	case cfg.ReadAllFields && cfg.ReadAllFieldsByName:
		o.readSets = [][]string{top}
	case cfg.ReadAllFields:
		o.readSets = [][]string{nil}
	default:
		o.readSets = windows(top, 1)
	}

	// Updates.
	switch d.UpdateMode {
	case workload.UpdatePartial:
		o.updMode = db.Partial
	case workload.UpdateReplace:
		o.updMode = db.Replace
	default:
		o.updMode = db.Merge
	}
	var sets [][]string
	switch {
	case d.UpdatePath != "":
		if err := o.checkPath("updatepath", d.UpdatePath); err != nil {
			return nil, err
		}
		if pi := o.paths[d.UpdatePath]; pi.InArray {
			return nil, fmt.Errorf("updatepath=%s: the path runs inside array elements; update the array (%s) or a path outside arrays", d.UpdatePath, arrayRoot(o.paths, d.UpdatePath))
		}
		sets = [][]string{{d.UpdatePath}}
	case d.UpdateFields > 0:
		sets = windows(top, min(d.UpdateFields, len(top)))
	case cfg.WriteAllFields:
		sets = [][]string{top}
	default:
		sets = windows(top, 1)
	}
	for _, s := range sets {
		fs := fieldSet{paths: s}
		for _, f := range s {
			fs.quoted = append(fs.quoted, append(strconv.AppendQuote(nil, f), ':'))
		}
		o.updSets = append(o.updSets, fs)
	}

	// Schema: top-level fields, their types, secondary indexes.
	o.schema = db.Schema{Table: cfg.Table, Fields: top, Columns: columns(shape)}
	for _, path := range d.SecondaryIndex {
		if err := o.checkPath("secondaryindex", path); err != nil {
			return nil, err
		}
		pi := o.paths[path]
		ix := db.Index{Path: path, Array: pi.Array || pi.InArray}
		if pi.InArray {
			ix.ArrayRoot = arrayRoot(o.paths, path)
		}
		o.schema.Indexes = append(o.schema.Indexes, ix)
	}

	// Queries and statements of the user's.
	if d.QueryMix != nil {
		if err := o.prepareMix(wl, seed, d.QueryMix); err != nil {
			return nil, err
		}
	} else if d.QueryProp > 0 {
		o.queryName = db.QueryOp(mustKind(d.QueryKind))
		spec := querySpec{name: o.queryName, kind: d.QueryKind, path: d.QueryPath, form: d.QueryForm, value: d.QueryValue,
			limit: d.QueryLimit, offset: d.QueryOffset, aggPath: d.QueryAggPath, fn: d.QueryFunc, fields: d.QueryFields}
		var err error
		if o.queries, err = o.prepareQueries(wl, seed, spec); err != nil {
			return nil, err
		}
	}
	if d.StatementProp > 0 {
		if err := o.prepareStatement(wl, seed); err != nil {
			return nil, err
		}
	}
	return o, nil
}

// windows returns, for each top-level field, the n consecutive fields
// starting there (wrapping around): the projections or update sets an
// operation picks one of uniformly.
func windows(top []string, n int) [][]string {
	out := make([][]string, len(top))
	for i := range top {
		w := make([]string, n)
		for j := range n {
			w[j] = top[(i+j)%len(top)]
		}
		out[i] = w
	}
	return out
}

// Deepest names the first leaf at the greatest depth outside arrays, for
// readpath= and updatepath= in sweeps over document.depth.
const Deepest = "@deepest"

func (o *DocOps) resolve(path string) string {
	if path != Deepest {
		return path
	}
	best := document.PathInfo{}
	for _, pi := range o.Shape.Paths() {
		if pi.Leaf && !pi.InArray && pi.Depth > best.Depth {
			best = pi
		}
	}
	return best.Path
}

func (o *DocOps) checkPath(prop, path string) error {
	if _, ok := o.paths[path]; ok {
		return nil
	}
	var some []string
	for _, pi := range o.Shape.Paths() {
		if len(some) == 12 {
			some = append(some, "…")
			break
		}
		some = append(some, pi.Path)
	}
	return fmt.Errorf("%s=%s: the documents have no such path (they have %s; `docbench doc` shows one)", prop, path, strings.Join(some, ", "))
}

// arrayRoot returns the longest prefix of path that is an array.
func arrayRoot(paths map[string]document.PathInfo, path string) string {
	segs := strings.Split(path, ".")
	for i := len(segs) - 1; i > 0; i-- {
		prefix := strings.Join(segs[:i], ".")
		if pi, ok := paths[prefix]; ok && pi.Array {
			return prefix
		}
	}
	return ""
}

// columns describes the top-level fields for column-per-field layouts.
func columns(shape document.Shape) []db.Column {
	var cols []db.Column
	index := map[string]int{}
	for _, pi := range shape.Paths() {
		if pi.Depth == 1 {
			index[pi.Path] = len(cols)
			cols = append(cols, db.Column{Name: pi.Path, Type: pi.Type, Items: pi.Items})
			continue
		}
		root, member, _ := strings.Cut(pi.Path, ".")
		if i, ok := index[root]; ok && pi.Depth == 2 && pi.InArray && cols[i].Items == document.TypeObject && !strings.Contains(member, ".") {
			cols[i].Members = append(cols[i].Members, db.Column{Name: member, Type: pi.Type, Items: pi.Items})
		}
	}
	return cols
}

// Schema is the table the operations' documents need.
func (o *DocOps) Schema() db.Schema { return o.schema }

// opName is the report name of an operation.
func (o *DocOps) opName(op workload.Op) string {
	if op == workload.OpQuery && o.queryName != "" {
		return o.queryName
	}
	if op == workload.OpStatement && o.stmtName != "" {
		return o.stmtName
	}
	return op.String()
}

// querySpec is one secondary query as the query.* properties, or an entry
// of a query mix, give it.
type querySpec struct {
	name                    string // its report name
	kind, path, form, value string
	limit, offset           int
	aggPath, fn             string
	fields                  []string
}

func mustKind(s string) db.QueryKind {
	k, ok := db.ParseQueryKind(s)
	if !ok {
		panic("runner: query kind " + s)
	}
	return k
}

// prepareQueries prepares a secondary query: one db.Query per predicate
// value found in a sample of the loaded documents, so that queries match.
func (o *DocOps) prepareQueries(wl *workload.Workload, seed uint64, d querySpec) ([]db.Query, error) {
	var queries []db.Query
	kind := mustKind(d.kind)
	if err := o.checkPath("query.path", d.path); err != nil {
		return nil, err
	}
	for _, f := range d.fields {
		if err := o.checkPath("fields", f); err != nil {
			return nil, err
		}
	}
	pi := o.paths[d.path]
	switch kind {
	case db.QueryField, db.QueryRange:
		if !pi.Leaf || pi.InArray {
			return nil, fmt.Errorf("query.path=%s: querykind=%s needs a scalar outside arrays (it is %s); for array elements use querykind=contains or array", d.path, d.kind, describe(pi))
		}
	case db.QueryArray:
		if !pi.Array || pi.Items == document.TypeObject || pi.Items == document.TypeArray {
			return nil, fmt.Errorf("query.path=%s: querykind=array needs an array of scalars (it is %s); for arrays of objects use querykind=contains with a path inside them", d.path, describe(pi))
		}
	case db.QueryDescendant:
		if !pi.Leaf {
			return nil, fmt.Errorf("query.path=%s: querykind=descendant looks for the path's last member, %s, at any depth with a scalar value; it is %s", d.path, db.LastSegment(d.path), describe(pi))
		}
		o.Notes = append(o.Notes, fmt.Sprintf("%s finds documents with a member %q at any depth equal to a value found at %s", d.name, db.LastSegment(d.path), d.path))
	case db.QueryContains:
		if !pi.Leaf {
			return nil, fmt.Errorf("query.path=%s: querykind=contains takes the scalar path to match (e.g. tags.term); it is %s", d.path, describe(pi))
		}
	case db.QueryAggregate:
		if !pi.Leaf || pi.InArray {
			return nil, fmt.Errorf("query.path=%s: querykind=aggregate groups by a scalar outside arrays (it is %s)", d.path, describe(pi))
		}
		if d.fn != "count" {
			if err := o.checkPath("query.aggpath", d.aggPath); err != nil {
				return nil, err
			}
			if a := o.paths[d.aggPath]; a.Type != document.TypeInteger && a.Type != document.TypeNumber || a.InArray {
				return nil, fmt.Errorf("query.aggpath=%s: query.func=%s needs a number outside arrays (it is %s)", d.aggPath, d.fn, describe(a))
			}
		}
		o.Notes = append(o.Notes, fmt.Sprintf("%s groups every document by %s: it reads the whole table", d.name, d.path))
		return []db.Query{{Kind: kind, Path: d.path, AggPath: d.aggPath, Func: d.fn}}, nil
	}
	var values [][]byte
	at := ""
	if kind == db.QueryArray && (d.value == workload.QueryValueFirst || d.value == workload.QueryValueLast) {
		at = d.value
	}
	if d.value != "" && at == "" {
		values = [][]byte{jsonValue(d.value)}
		o.Notes = append(o.Notes, fmt.Sprintf("%s looks for %s=%s only (query.value)", d.name, d.path, values[0]))
	} else {
		var err error
		if values, err = o.sampleValues(wl, seed, d.path, kind == db.QueryArray, at); err != nil {
			return nil, err
		}
		if at != "" {
			o.Notes = append(o.Notes, fmt.Sprintf("%s looks for the %s elements of %s in the documents (query.value=%s): %d value(s)", d.name, at[1:], d.path, at, len(values)))
		}
	}
	root := arrayRoot(o.paths, d.path)
	for _, v := range values {
		q := db.Query{Kind: kind, Path: d.path, Value: v, Limit: d.limit, Offset: d.offset, Fields: d.fields}
		if kind == db.QueryContains {
			q.Path, q.Value = containsFragment(d.path, root, v)
			if d.form == workload.QueryFormDocument {
				q.Path, q.Value = "", wrapFragment(q.Path, q.Value)
			}
		}
		queries = append(queries, q)
	}
	if kind == db.QueryDescendant {
		return queries, nil // no path index serves a search at any depth
	}
	if kind == db.QueryContains && d.form == workload.QueryFormDocument {
		o.Notes = append(o.Notes, fmt.Sprintf("%s on %s: query.form=document, containment on the whole document; only an index over the whole document serves it (PostgreSQL index=gin or index=gin_path_ops)", d.name, d.path))
	} else if !o.indexed(kind, d.path, root) {
		o.Notes = append(o.Notes, fmt.Sprintf("%s on %s: no secondary index covers it (secondaryindex=%s would add one); it runs without", d.name, d.path, d.path))
	}
	return queries, nil
}

func describe(pi document.PathInfo) string {
	s := pi.Type
	if pi.Array && pi.Items != "" {
		s = "an array of " + pi.Items
	}
	if pi.InArray {
		s += " inside array elements"
	}
	return s
}

// indexed reports whether a secondary index serves a query on path.
func (o *DocOps) indexed(kind db.QueryKind, path, root string) bool {
	for _, ix := range o.schema.Indexes {
		if ix.Path == path || (kind == db.QueryContains && root != "" && ix.ArrayRoot == root) {
			return true
		}
	}
	return false
}

// containsFragment turns a value found at path into the containment query
// that finds it: inside an array, Path is the array and Value [{"m": v}];
// elsewhere, Path is the whole document and Value {"a":{"b": v}}.
func containsFragment(path, root string, v []byte) (string, []byte) {
	rest := path
	if root != "" {
		rest = strings.TrimPrefix(path, root+".")
	}
	segs := strings.Split(rest, ".")
	var b []byte
	if root != "" {
		b = append(b, '[')
	}
	for _, s := range segs {
		b = append(strconv.AppendQuote(append(b, '{'), s), ':')
	}
	b = append(b, v...)
	for range segs {
		b = append(b, '}')
	}
	if root != "" {
		b = append(b, ']')
	}
	return root, b
}

// wrapFragment turns a fragment contained by the value at path into the
// fragment the whole document contains: path a.b and [{"m":v}] give
// {"a":{"b":[{"m":v}]}}. An empty path leaves the fragment as it is.
func wrapFragment(path string, frag []byte) []byte {
	if path == "" {
		return frag
	}
	segs := strings.Split(path, ".")
	var b []byte
	for _, s := range segs {
		b = append(strconv.AppendQuote(append(b, '{'), s), ':')
	}
	b = append(b, frag...)
	for range segs {
		b = append(b, '}')
	}
	return b
}

// sampleValues generates documents spread over the loaded keys and collects
// the distinct JSON values found at path (elements, for an array; with at
// @first or @last, only each array's first or last element).
func (o *DocOps) sampleValues(wl *workload.Workload, seed uint64, path string, elements bool, at string) ([][]byte, error) {
	start, n := wl.Keyspace() // the same values on every shard
	if n <= 0 {
		n = max(o.cfg.RecordCount, 1)
		start = 0
	}
	r := rand.New(rand.NewPCG(seed, 0x7175657279)) // "query"
	th := wl.NewThread(0)
	dr := document.NewRand()
	seen := map[string]bool{}
	var out [][]byte
	var buf, key []byte
	// At most queryPoolSize*4 documents, and at most as many values as that
	// many documents of 1000-element arrays hold: a document of a million
	// elements decodes in a fraction of a second, a thousand of them would
	// take minutes before the first run.
	examined := 0
	for i := 0; i < queryPoolSize*4 && len(out) < queryPoolSize && examined < queryPoolSize*4*1000; i++ {
		keynum := start + r.Int64N(n)
		key = th.AppendKey(key[:0], keynum)
		buf = o.Shape.AppendDoc(buf[:0], key, keynum, dr)
		var v any
		if err := json.Unmarshal(buf, &v); err != nil {
			return nil, fmt.Errorf("document of key %s: %w", key, err)
		}
		found := valuesAt(v, strings.Split(path, "."), elements && at == "")
		n := len(found)
		if at != "" {
			found, n = arrayEnds(found, at == workload.QueryValueLast)
		}
		examined += n
		for _, x := range found {
			b, _ := json.Marshal(x)
			if x == nil || seen[string(b)] {
				continue
			}
			seen[string(b)] = true
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("query.path=%s: no value found there in %d sample documents", path, queryPoolSize*4)
	}
	sort.Slice(out, func(i, j int) bool { return string(out[i]) < string(out[j]) })
	return out, nil
}

// jsonValue is v as a JSON value: v itself when it is one (a number,
// "quoted", true…), else v as a JSON string.
func jsonValue(v string) []byte {
	if json.Valid([]byte(v)) {
		return []byte(v)
	}
	b, _ := json.Marshal(v)
	return b
}

// arrayEnds returns the first (or last) element of each array among vs and
// how many elements those arrays hold.
func arrayEnds(vs []any, last bool) ([]any, int) {
	var out []any
	n := 0
	for _, v := range vs {
		a, ok := v.([]any)
		if !ok || len(a) == 0 {
			continue
		}
		n += len(a)
		if last {
			out = append(out, a[len(a)-1])
		} else {
			out = append(out, a[0])
		}
	}
	return out, n
}

// valuesAt walks a decoded document along segs, descending into every
// element of the arrays met; with elements, an array found at the end
// yields its elements.
func valuesAt(v any, segs []string, elements bool) []any {
	if arr, ok := v.([]any); ok && (len(segs) > 0 || elements) {
		var out []any
		for _, e := range arr {
			out = append(out, valuesAt(e, segs, false)...)
		}
		return out
	}
	if len(segs) == 0 {
		return []any{v}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	return valuesAt(m[segs[0]], segs[1:], elements)
}
