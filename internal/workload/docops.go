package workload

import (
	"strconv"
	"strings"
)

// DocOps are docbench's document extensions of the core workload: which
// part of a document reads and updates touch, how updates write, and the
// secondary queries. Paths are dotted ("address.zip"); whether they exist
// in the document shape is checked when the run is planned.
type DocOps struct {
	ReadFields     int      // readfields=N: N top-level fields per read (0: YCSB's readallfields)
	ReadFieldsPct  float64  // readfields=P%: that share of the top-level fields (0 when not a percentage)
	ReadPath       string   // readpath: read only this path (@deepest: the deepest leaf)
	UpdateMode     string   // updatemode: merge (YCSB's, default), partial, replace
	UpdateFields   int      // updatefields=N: fields per update (0: YCSB's writeallfields)
	UpdatePath     string   // updatepath: update only this path (implies partial unless updatemode says otherwise; @deepest: the deepest leaf)
	QueryProp      float64  // queryproportion: share of secondary queries
	QueryKind      string   // querykind: field, contains, array, range, aggregate, descendant
	QueryPath      string   // query.path: the path the predicate or the grouping is on
	QueryForm      string   // query.form: path (predicate on the value at the path) or document (whole-document containment); contains queries only
	QueryValue     string   // query.value: the one value queries look for (a JSON value, or text as a string), instead of values found in the documents; @first/@last: the arrays' first/last elements
	QueryLimit     int      // query.limit: the most documents a query returns (0: every match; range: RangeLimit by default); with querymix, of the entries that set none
	QueryOffset    int      // query.offset: documents a query skips
	QueryFields    []string // query.fields: the paths a query returns (a projection), comma-separated; nil: the whole document
	QueryAggPath   string   // query.aggpath: path averaged/summed by aggregate queries
	QueryFunc      string   // query.func: avg, sum or count
	QueryMix       *Mix     // querymix: named queries with their proportions (QueryProp is their sum)
	SecondaryIndex []string

	// Micro statements: SQL of the user's, measured as an operation of its
	// own (the seeds' SQL experiments that YCSB cannot express).
	StatementProp   float64  // statementproportion: share of statements
	StatementSQL    string   // statement.sql: the statement; {table} names docbench's table
	StatementParams []string // statement.params: a generator per parameter (key, keynum, value:PATH, text:PATH, int:MIN:MAX, const:X)
	StatementName   string   // statement.name: reported as STATEMENT-NAME (default STATEMENT)
	StatementSetup  []string // statement.setup: statements run once before the run phase, separated by ;
	Scripts         []Script // statement.file: files of statements, each a transaction drawn by its weight
}

// Update modes (updatemode).
const (
	UpdateMerge   = "merge"
	UpdatePartial = "partial"
	UpdateReplace = "replace"
)

// Positional values of query.value for querykind=array: the element at
// that end of the sampled documents' arrays (with document.arrayitems=
// sequence, one value at one position in every document).
const (
	QueryValueFirst = "@first"
	QueryValueLast  = "@last"
)

// Query forms (query.form) of containment queries. Path: the predicate is on
// the value at the path's array (or the path's parent), e.g. PostgreSQL
// (data #> '{tags}') @> '[{"term": v}]', which an index on that path
// serves. Document: the predicate is on the whole document, e.g.
// data @> '{"tags":[{"term": v}]}', as the seeds write it, which an index
// over the whole document (PostgreSQL GIN jsonb_ops or jsonb_path_ops)
// serves.
const (
	QueryFormPath     = "path"
	QueryFormDocument = "document"
)

func (c *configParser) docOps(cfg *Config) {
	d := &cfg.Doc
	if v, ok := c.raw("readfields"); ok {
		if pct, isPct := strings.CutSuffix(v, "%"); isPct {
			f, err := strconv.ParseFloat(pct, 64)
			if err != nil || f <= 0 || f > 100 {
				c.fail("readfields", "want N fields or a percentage in (0, 100]%%")
			}
			d.ReadFieldsPct = f
		} else if n, err := strconv.Atoi(v); err != nil || n < 1 {
			c.fail("readfields", "want N fields (at least 1) or a percentage like 10%%")
		} else {
			d.ReadFields = n
		}
	}
	d.ReadPath = c.str("readpath", "")
	d.UpdatePath = c.str("updatepath", "")
	def := UpdateMerge
	if d.UpdatePath != "" {
		def = UpdatePartial
	}
	d.UpdateMode = c.enum("updatemode", def, "update mode", UpdateMerge, UpdatePartial, UpdateReplace)
	if d.UpdatePath != "" && d.UpdateMode == UpdateMerge && strings.Contains(d.UpdatePath, ".") {
		c.fail("updatemode", "merge sets top-level fields; updatepath=%s is nested: use updatemode=partial", d.UpdatePath)
	}
	d.UpdateFields = int(c.int("updatefields", 0, 0, 1<<20))
	if d.UpdateFields > 0 && d.UpdatePath != "" {
		c.fail("updatefields", "give updatefields or updatepath, not both")
	}
	if d.ReadFields > 0 && d.ReadPath != "" || d.ReadFieldsPct > 0 && d.ReadPath != "" {
		c.fail("readfields", "give readfields or readpath, not both")
	}
	d.QueryProp = c.float("queryproportion", 0, 0, 1)
	d.QueryKind = c.enum("querykind", "field", "query kind", "field", "contains", "array", "range", "aggregate", "descendant")
	d.QueryPath = c.str("query.path", "")
	d.QueryForm = c.enum("query.form", QueryFormPath, "query form", QueryFormPath, QueryFormDocument)
	if d.QueryForm == QueryFormDocument && d.QueryKind != "contains" {
		c.fail("query.form", "query.form=document is the whole-document form of querykind=contains; querykind is %s", d.QueryKind)
	}
	d.QueryValue = c.str("query.value", "")
	if d.QueryValue != "" && (d.QueryKind == "aggregate" || d.QueryKind == "range") {
		c.fail("query.value", "querykind=%s takes no value", d.QueryKind)
	} else if (d.QueryValue == QueryValueFirst || d.QueryValue == QueryValueLast) && d.QueryKind != "array" {
		c.fail("query.value", "names an array's %s element: querykind=array only (querykind is %s)", d.QueryValue[1:], d.QueryKind)
	}
	limit := 0
	if d.QueryKind == "range" {
		limit = RangeLimit
	}
	d.QueryLimit = int(c.int("query.limit", int64(limit), 0, 1<<30))
	d.QueryOffset = int(c.int("query.offset", 0, 0, 1<<30))
	if v := c.str("query.fields", ""); v != "" {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				d.QueryFields = append(d.QueryFields, f)
			}
		}
	}
	d.QueryAggPath = c.str("query.aggpath", "")
	d.QueryFunc = c.enum("query.func", "avg", "aggregate function", "avg", "sum", "count")
	if d.QueryProp > 0 && d.QueryPath == "" {
		c.fail("query.path", "queryproportion=%g needs the path the queries are on", d.QueryProp)
	}
	if d.QueryProp > 0 && d.QueryKind == "aggregate" && d.QueryFunc != "count" && d.QueryAggPath == "" {
		c.fail("query.aggpath", "an aggregate query with query.func=%s needs the path to aggregate", d.QueryFunc)
	}
	if file := c.str("querymix", ""); file != "" {
		c.queryMix(d, file)
	} else if d.QueryProp > 0 {
		c.ignoredQueryProps(d.QueryKind)
	}
	d.StatementProp = c.float("statementproportion", 0, 0, 1)
	d.StatementSQL = c.str("statement.sql", "")
	d.StatementName = c.str("statement.name", "")
	if v := c.str("statement.params", ""); v != "" {
		for _, p := range strings.Split(v, ",") {
			p = strings.TrimSpace(p)
			kind, _, _ := strings.Cut(p, ":")
			switch kind {
			case "key", "keynum", "value", "text", "int", "const":
			default:
				c.fail("statement.params", "parameter %q: want key, keynum, value:PATH, text:PATH, int:MIN:MAX or const:X", p)
			}
			d.StatementParams = append(d.StatementParams, p)
		}
	}
	if v := c.str("statement.setup", ""); v != "" {
		for _, st := range strings.Split(v, ";") {
			if st = strings.TrimSpace(st); st != "" {
				d.StatementSetup = append(d.StatementSetup, st)
			}
		}
	}
	files := c.str("statement.file", "")
	if files != "" {
		c.scripts(d, files)
	}
	if d.StatementProp > 0 && d.StatementSQL == "" && files == "" {
		c.fail("statement.sql", "statementproportion=%g needs the statement to run (statement.sql or statement.file)", d.StatementProp)
	}
	if v := c.str("secondaryindex", ""); v != "" {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				d.SecondaryIndex = append(d.SecondaryIndex, p)
			}
		}
	}
}

// queryMix reads the querymix file, which takes the place of queryproportion
// and querykind: its proportions sum to QueryProp.
func (c *configParser) queryMix(d *DocOps, file string) {
	if d.QueryProp > 0 {
		c.fail("querymix", "give querymix or queryproportion, not both (the mix's entries have their own proportions)")
		return
	}
	m, err := ReadMix(mixPath(file, c.p.Source("querymix")))
	if err != nil {
		c.errs = append(c.errs, err)
		return
	}
	d.QueryMix = m
	for _, q := range m.Queries {
		d.QueryProp += q.Proportion
	}
	for _, k := range []string{"querykind", "query.path", "query.form", "query.value", "query.offset", "query.fields", "query.aggpath", "query.func"} {
		if _, ok := c.p.Get(k); ok {
			c.fail(k, "querymix=%s names its queries and would ignore it: set %s on the mix's entries", file, mixKey(k))
		}
	}
	if _, ok := c.p.Get("query.limit"); !ok {
		return
	}
	for i := range m.Queries { // query.limit: of the entries that set none
		if q := &m.Queries[i]; !q.LimitGiven && q.Kind != "aggregate" && q.Kind != "update" {
			q.Limit = d.QueryLimit
		}
	}
}

// mixKey is the mix entry's key for a query.* property.
func mixKey(prop string) string {
	if prop == "querykind" {
		return "kind:"
	}
	return strings.TrimPrefix(prop, "query.") + ":"
}

// ignoredQueryProps refuses the query.* properties the query kind would
// ignore: an aggregate returns its groups, all of them; func and aggpath
// are an aggregate's.
func (c *configParser) ignoredQueryProps(kind string) {
	for _, k := range []string{"query.limit", "query.offset", "query.aggpath", "query.func"} {
		if _, ok := c.p.Get(k); !ok {
			continue
		}
		switch agg := kind == "aggregate"; {
		case agg && (k == "query.limit" || k == "query.offset"):
			c.fail(k, "querykind=aggregate returns one row per group, all of them: %s would be ignored", k)
		case !agg && (k == "query.aggpath" || k == "query.func"):
			c.fail(k, "is an aggregate's (querykind is %s): it would be ignored", kind)
		}
	}
}
