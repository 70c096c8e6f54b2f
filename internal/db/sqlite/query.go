package sqlite

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// predExpr is the SQL value at a dotted path; secondary indexes and queries
// spell it identically so that an expression index is usable.
func predExpr(path string) string { return "(data ->> " + sqlString(jsonPath(path)) + ")" }

// createIndexes creates expression indexes for scalar paths. SQLite has no
// inverted index for array elements: such a path is recorded as not
// indexed, and queries on it scan.
func (s *store) createIndexes(ctx context.Context, sc db.Schema) error {
	s.notIndexed = s.notIndexed[:0]
	for i, ix := range sc.Indexes {
		if ix.Array {
			s.notIndexed = append(s.notIndexed, ix.Path+" (SQLite has no index over array elements; queries on it scan)")
			continue
		}
		q := fmt.Sprintf("CREATE INDEX IF NOT EXISTS %s ON %s (%s)", quote(fmt.Sprintf("%s_idx%d", sc.Table, i)), quote(sc.Table), predExpr(ix.Path))
		if _, err := s.db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("sqlite secondaryindex=%s: %s: %w", ix.Path, q, err)
		}
	}
	return nil
}

// secondaryIndexes reads the table's indexes from sqlite_schema (the
// primary key's has no SQL): the path of an index on predExpr(path), and
// each definition from its column list on.
func (s *store) secondaryIndexes(ctx context.Context) ([]db.CatalogIndex, error) {
	rows, err := s.db.QueryContext(ctx, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", s.table)
	if err != nil {
		return nil, fmt.Errorf("sqlite catalog: %w", err)
	}
	defer rows.Close()
	var out []db.CatalogIndex
	for rows.Next() {
		var q string
		if err := rows.Scan(&q); err != nil {
			return nil, fmt.Errorf("sqlite catalog: %w", err)
		}
		def := q
		if i := strings.Index(q, "("); i >= 0 {
			def = q[i:]
		}
		out = append(out, db.CatalogIndex{Path: indexedPath(def), Def: def})
	}
	return out, rows.Err()
}

// indexedPath is the dotted path of an index definition "(predExpr(path))",
// "" for another expression.
func indexedPath(def string) string {
	jp, ok1 := strings.CutPrefix(def, "((data ->> '")
	jp, ok2 := strings.CutSuffix(jp, "'))")
	rest, ok3 := strings.CutPrefix(strings.ReplaceAll(jp, "''", "'"), "$.")
	if !ok1 || !ok2 || !ok3 {
		return ""
	}
	var segs []string
	for rest != "" {
		seg := rest
		switch i := strings.IndexByte(rest, '.'); {
		case rest[0] == '"':
			j := 1
			for j < len(rest) && (rest[j] != '"' || rest[j-1] == '\\') {
				j++
			}
			if j == len(rest) {
				return ""
			}
			seg, rest = strings.ReplaceAll(rest[1:j], `\"`, `"`), rest[j+1:]
		case i >= 0:
			seg, rest = rest[:i], rest[i:]
		default:
			rest = ""
		}
		segs = append(segs, seg)
		rest = strings.TrimPrefix(rest, ".")
	}
	path := strings.Join(segs, ".")
	if "("+predExpr(path)+")" != def {
		return ""
	}
	return path
}

// containment translates a JSON fragment into predicates on the value at
// base (an SQL JSON expression): members of objects recursively, elements
// of arrays through EXISTS over json_each, scalars by equality.
func containment(base string, frag any, args *[]any, depth int) (string, error) {
	switch v := frag.(type) {
	case map[string]any:
		var parts []string
		for k, x := range v {
			p, err := containment(base+" -> "+sqlString("$."+jsonPathKey(k)), x, args, depth)
			if err != nil {
				return "", err
			}
			parts = append(parts, p)
		}
		if len(parts) == 0 {
			return "json_type(" + base + ") = 'object'", nil
		}
		return strings.Join(parts, " AND "), nil
	case []any:
		var parts []string
		for _, x := range v {
			alias := fmt.Sprintf("je%d", depth)
			p, err := containment(alias+".value", x, args, depth+1)
			if err != nil {
				return "", err
			}
			parts = append(parts, "EXISTS (SELECT 1 FROM json_each("+base+") "+alias+" WHERE "+p+")")
		}
		if len(parts) == 0 {
			return "json_type(" + base + ") = 'array'", nil
		}
		return strings.Join(parts, " AND "), nil
	}
	b, err := json.Marshal(frag)
	if err != nil {
		return "", err
	}
	*args = append(*args, string(b))
	return base + " ->> '$' = json_extract(?, '$')", nil
}

// querySQL builds a secondary query and its leading arguments.
func (s *session) querySQL(q *db.Query) (string, []any, error) {
	sel := "json(data)"
	if q.Fields != nil {
		sel, _ = selectFields(q.Fields)
	}
	if q.Keys != nil {
		sel = "ycsb_key, " + sel
	}
	from := " FROM " + s.Table
	page := " LIMIT ? OFFSET ?"
	value := string(q.Value)
	switch q.Kind {
	case db.QueryField:
		return "SELECT " + sel + from + " WHERE " + predExpr(q.Path) + " = json_extract(?, '$')" + page, []any{value}, nil
	case db.QueryArray:
		return "SELECT " + sel + from + " WHERE EXISTS (SELECT 1 FROM json_each(data, " + sqlString(jsonPath(q.Path)) +
			") WHERE value = json_extract(?, '$'))" + page, []any{value}, nil
	case db.QueryRange:
		e := predExpr(q.Path)
		return "SELECT " + sel + from + " WHERE " + e + " >= json_extract(?, '$') ORDER BY " + e + ", ycsb_key" + page, []any{value}, nil
	case db.QueryContains:
		var frag any
		if err := json.Unmarshal(q.Value, &frag); err != nil {
			return "", nil, fmt.Errorf("sqlite contains: %w", err)
		}
		base := "data"
		if q.Path != "" {
			base = "(data -> " + sqlString(jsonPath(q.Path)) + ")"
		}
		var args []any
		w, err := containment(base, frag, &args, 0)
		return "SELECT " + sel + from + " WHERE " + w + page, args, err
	case db.QueryDescendant: // a member named k at any depth: json_tree walks every node
		return "SELECT " + sel + from + " WHERE EXISTS (SELECT 1 FROM json_tree(data) t WHERE t.key = ? AND t.type NOT IN ('object', 'array') AND t.atom = json_extract(?, '$'))" + page,
			[]any{db.LastSegment(q.Path), value}, nil
	case db.QueryAggregate:
		agg := "count(*)"
		if q.Func == "avg" || q.Func == "sum" {
			agg = q.Func + "(" + predExpr(q.AggPath) + ")"
		}
		return "SELECT " + predExpr(q.Path) + ", " + agg + from + " GROUP BY 1", nil, nil
	}
	return "", nil, fmt.Errorf("sqlite: query kind %v", q.Kind)
}

// Query runs a secondary query and returns how many rows it produced.
func (s *session) Query(ctx context.Context, q *db.Query) (int, error) {
	text, args, err := s.querySQL(q)
	if err != nil {
		return 0, err
	}
	st, ok := s.queries[text]
	if !ok {
		if st, err = s.Prepare(ctx, text); err != nil {
			return 0, err
		}
		s.queries[text] = st
	}
	if q.Kind != db.QueryAggregate {
		limit := -1 // SQLite: no limit
		if q.Limit > 0 {
			limit = q.Limit
		}
		args = append(args, limit, q.Offset)
	}
	if q.Keys != nil && q.Kind != db.QueryAggregate {
		return s.CountKeys(ctx, st, 2, q.Keys, args...)
	}
	return s.Count(ctx, st, 0, args...)
}
