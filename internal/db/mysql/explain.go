package mysql

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StatementExplainer = (*session)(nil)

// ExplainStatement shows the plan of the statement the session prepares
// for st, bound as the session's operation binds st's values: EXPLAIN
// FORMAT=JSON of its text, itself prepared and executed. MySQL and MariaDB both answer
// with JSON, shaped differently (MariaDB nests tables under nested_loop,
// filesort, read_sorted_file…; MySQL under ordering_operation,
// grouping_operation…; MySQL 8.3's format version 2 under inputs): every
// object naming a table_name is read, wherever it is. A key lookup, update,
// scan or secondary query that reads a table with access_type ALL (a full
// scan) is flagged; const, eq_ref, ref, range, index… with a key use an
// index.
//
// go-mysql-server (the MySQL 8 peer) has no EXPLAIN FORMAT=JSON: its plan
// is EXPLAIN FORMAT=TREE, read by treeSteps.
//
// MariaDB uses an index on a generated column only when the query names the
// column, not the expression the column is defined by: queries on a path
// with a secondary index name its column (querySQL), and a flag says when
// the plan still does not use it.
func (ss *session) ExplainStatement(ctx context.Context, st *db.Statement) (db.Plan, error) {
	explain := func(stmt *sql.Stmt, args ...any) (db.Plan, error) {
		return ss.explain(ctx, st.Kind, ss.Texts[stmt], args, ""), nil
	}
	generated := ss.layout == layoutGenerated
	switch {
	case st.Kind == db.StmtUpdate && st.Update.Mode == db.Replace && generated:
		return explain(ss.replace, db.AppendWithKey(nil, st.Key, st.Update.Doc), st.Key)
	case st.Kind == db.StmtUpdate && st.Update.Mode == db.Replace:
		return explain(ss.replace, st.Update.Doc, st.Key)
	case st.Kind == db.StmtUpdate && st.Update.Mode == db.Merge && (len(st.Update.Paths) == 0 || len(st.Update.Paths) != len(st.Update.Values)):
		return explain(ss.merge, st.Update.Doc, st.Key)
	case st.Kind == db.StmtInsert && generated:
		return explain(ss.insert, db.AppendWithKey(nil, st.Key, st.Doc))
	case st.Kind == db.StmtInsert:
		return explain(ss.insert, st.Key, st.Doc)
	case st.Kind == db.StmtQuery:
		text, args, err := ss.queryArgs(st.Query)
		if err != nil {
			return db.Plan{}, err
		}
		return ss.explain(ctx, st.Kind, text, args, ss.indexNote(st.Query)), nil
	}
	// reads, scans, merges by member and partial updates
	stmt, args, err := ss.StatementArgs(ctx, st, ss.read, ss.scan)
	if err != nil {
		return db.Plan{}, err
	}
	return explain(stmt, args...)
}

// queryArgs returns the text of a query's statement and its arguments, as
// Query binds them.
func (s *session) queryArgs(q *db.Query) (string, []any, error) {
	class, err := s.queryClass(q)
	if err != nil {
		return "", nil, err
	}
	text, _, err := s.querySQL(q, class)
	if err != nil {
		return "", nil, err
	}
	args, err := s.appendQueryArgs(nil, q, class)
	return text, args, err
}

// indexNote says what secondary index a query's path has, for a flag.
func (s *session) indexNote(q *db.Query) string {
	ix, ok := s.indexes[q.Path]
	switch {
	case q.Kind == db.QueryAggregate:
		return "the aggregate groups every document"
	case ok && ix.col != "":
		return "the path has the indexed generated column " + ix.col + ", which the plan does not use"
	case ok:
		return "the path has a multi-valued index, which the plan does not use"
	case q.Kind == db.QueryArray && !s.d.memberOf:
		return s.d.flavour() + " has no multi-valued indexes: array queries scan"
	case q.Kind == db.QueryContains:
		return "no index serves JSON_CONTAINS here"
	case q.Kind == db.QueryDescendant:
		return "no index serves a key at any depth ($**)"
	}
	return "no secondary index on " + q.Path
}

// explain shows the plan of text bound to args; note says why a flagged
// statement of kind k uses no index.
func (s *session) explain(ctx context.Context, k db.StatementKind, text string, args []any, note string) db.Plan {
	p := db.Plan{Statement: text}
	if text == "" {
		p.Access = "not explained: the statement's text is unknown"
		return p
	}
	var steps []step
	var err error
	if s.d.compat == gmsCompat {
		p.Plan, err = s.explainTree(ctx, text, args)
		if err != nil {
			p.Access = "not explained: " + oneLine(err).Error()
			return p
		}
		steps, err = treeSteps(p.Plan)
	} else {
		if err := s.Conn.QueryRowContext(ctx, "EXPLAIN FORMAT=JSON "+text, args...).Scan(&p.Plan); err != nil {
			p.Access = "not explained: " + oneLine(err).Error()
			return p
		}
		steps, err = planSteps(p.Plan)
	}
	if err != nil {
		p.Access = "not explained: EXPLAIN output: " + err.Error()
		return p
	}
	parts := make([]string, len(steps))
	var full, possible []string
	for i, st := range steps {
		parts[i] = st.String()
		if st.fullScan() {
			full = append(full, st.table)
			possible = append(possible, st.possible...)
		}
	}
	p.Access = strings.Join(parts, "; ")
	if k != db.StmtInsert && len(full) > 0 {
		p.Flag = "no index used: full scan of " + strings.Join(full, ", ") + " (access_type ALL)"
		if len(possible) > 0 {
			// e.g. a scan from the first key: most of the table is in range.
			note = "the optimizer preferred it to the possible keys " + strings.Join(possible, ", ") + " for these parameters"
		}
		if note != "" {
			p.Flag += " (" + note + ")"
		}
	}
	return p
}

// explainTree returns go-mysql-server's plan of a statement, which has no
// EXPLAIN FORMAT=JSON: EXPLAIN FORMAT=TREE, one row per line. Its prepared
// EXPLAIN takes no parameters (v0.20.0: "expected 0 arguments"), so the
// arguments are written into the text as literals.
func (s *session) explainTree(ctx context.Context, text string, args []any) (string, error) {
	text, err := interpolate(text, args)
	if err != nil {
		return "", err
	}
	rows, err := s.Conn.QueryContext(ctx, "EXPLAIN FORMAT=TREE "+text)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return "", err
		}
		lines = append(lines, line)
	}
	return strings.Join(lines, "\n"), rows.Err()
}

// interpolate replaces the placeholders of text (the ? outside quotes) with
// args as literals: strings and []byte quoted, integers in decimal.
func interpolate(text string, args []any) (string, error) {
	var b strings.Builder
	n := 0
	var quote byte
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '\'' && i+1 < len(text) {
				b.WriteByte(c)
				i++
				c = text[i]
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '?':
			if n == len(args) {
				return "", fmt.Errorf("more placeholders than the %d arguments in %s", len(args), text)
			}
			switch v := args[n].(type) {
			case string:
				b.WriteString(quoteLiteral(v))
			case []byte:
				b.WriteString(quoteLiteral(string(v)))
			case int64:
				b.WriteString(strconv.FormatInt(v, 10))
			case int:
				b.WriteString(strconv.Itoa(v))
			default:
				return "", fmt.Errorf("argument %d of %s: %T", n+1, text, v)
			}
			n++
			continue
		}
		b.WriteByte(c)
	}
	if n != len(args) {
		return "", fmt.Errorf("%d arguments for the %d placeholders of %s", len(args), n, text)
	}
	return b.String(), nil
}

// treeSteps finds the table accesses of a go-mysql-server plan tree: an
// IndexedTableAccess(t) node with its "index: [t.col]" line reads an index;
// a Table node with its "name: t" line reads the whole table (a full scan,
// reported as access_type ALL).
func treeSteps(tree string) ([]step, error) {
	var out []step
	lines := strings.Split(tree, "\n")
	// child returns the value of "key: value" among the lines after node i
	// that are deeper than it.
	child := func(i int, key string) string {
		depth := strings.Index(lines[i], strings.TrimLeft(lines[i], " │├└─"))
		for _, l := range lines[i+1:] {
			body := strings.TrimLeft(l, " │├└─")
			if strings.Index(l, body) <= depth {
				break
			}
			if v, ok := strings.CutPrefix(body, key+": "); ok {
				return v
			}
		}
		return ""
	}
	for i, l := range lines {
		node := strings.TrimLeft(l, " │├└─")
		switch {
		case strings.HasPrefix(node, "IndexedTableAccess(") && strings.HasSuffix(node, ")"):
			st := step{table: strings.TrimSuffix(strings.TrimPrefix(node, "IndexedTableAccess("), ")"), access: "index"}
			cols := strings.Split(strings.Trim(child(i, "index"), "[]"), ", ")
			for j, c := range cols {
				cols[j] = c[strings.LastIndex(c, ".")+1:] // t.col → col
			}
			st.key = strings.Join(cols, ",")
			out = append(out, st)
		case node == "Table":
			if name := child(i, "name"); name != "" {
				out = append(out, step{table: name, access: "ALL"})
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no table access in %q", tree)
	}
	return out, nil
}

// step is one table access (or message) of an EXPLAIN FORMAT=JSON plan.
type step struct {
	table, access, key, message string
	possible                    []string
	rows                        float64
	hasRows                     bool
}

func (st step) String() string {
	if st.table == "" {
		return st.message
	}
	b := st.table + ": " + st.access
	if st.access == "" {
		b = st.table + ": written, not read"
	}
	switch {
	case st.key != "":
		b += " on " + st.key
	case st.fullScan():
		b += " (full scan)"
	}
	if st.key == "" && len(st.possible) > 0 {
		b += ", possible keys " + strings.Join(st.possible, ", ")
	}
	if st.hasRows {
		b += fmt.Sprintf(", ~%g rows", st.rows)
	}
	if st.message != "" {
		b += " (" + st.message + ")"
	}
	return b
}

// fullScan: access_type ALL (format 1), or a table scan without an index
// (format 2's access_type "table").
func (st step) fullScan() bool {
	return st.access == "ALL" || st.access == "table" && st.key == ""
}

// planSteps finds every table access in an EXPLAIN FORMAT=JSON document
// (members in name order: a decoded object keeps no order), and the messages of tables the optimizer did not read
// ("Impossible WHERE noticed after reading const tables", "No tables used").
func planSteps(raw string) ([]step, error) {
	var doc any
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return nil, err
	}
	var out []step
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case map[string]any:
			if name, ok := x["table_name"].(string); ok {
				st := step{table: name}
				st.access, _ = x["access_type"].(string)
				if st.key, _ = x["key"].(string); st.key == "" {
					st.key, _ = x["index_name"].(string) // format 2
				}
				if pk, ok := x["possible_keys"].([]any); ok {
					for _, k := range pk {
						if s, ok := k.(string); ok {
							st.possible = append(st.possible, s)
						}
					}
				}
				for _, k := range []string{"rows", "rows_examined_per_scan", "estimated_rows"} {
					if n, ok := x[k].(float64); ok {
						st.rows, st.hasRows = n, true
						break
					}
				}
				st.message, _ = x["message"].(string)
				out = append(out, st)
			} else if msg, ok := x["message"].(string); ok {
				out = append(out, step{message: msg})
			}
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys) // maps lose the order: be deterministic
			for _, k := range keys {
				if k != "table_name" {
					walk(x[k])
				}
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(doc)
	if len(out) == 0 {
		return nil, fmt.Errorf("no table access in %s", raw)
	}
	return out, nil
}
