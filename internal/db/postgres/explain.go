package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
)

var _ db.StatementExplainer = (*session)(nil)

// ExplainStatement shows the plan of the statement the session prepares
// for st, bound as the session's operation binds st's values: EXPLAIN
// (FORMAT JSON) EXECUTE of the prepared statement. A key lookup or query
// without an index is flagged, and whether an index could serve it at all
// is said.
func (ss *session) ExplainStatement(ctx context.Context, st *db.Statement) (db.Plan, error) {
	layout := ss.st.v.layout
	explain := func(stmt string, args ...any) (db.Plan, error) { return ss.explain(ctx, st.Kind, stmt, args) }
	key := ss.keyArg(st.Key)
	if b, ok := key.([]byte); ok {
		key = append([]byte(nil), b...)
	}
	var err error
	switch st.Kind {
	case db.StmtRead:
		stmt := "read"
		if st.Fields != nil {
			if stmt, err = ss.projection(ctx, st.Fields, false); err != nil {
				return db.Plan{}, err
			}
		}
		return explain(stmt, key)
	case db.StmtScan:
		stmt := "scan"
		if st.Fields != nil {
			if stmt, err = ss.projection(ctx, st.Fields, true); err != nil {
				return db.Plan{}, err
			}
		}
		return explain(stmt, st.Key, st.Count)
	case db.StmtUpdate:
		u := st.Update
		switch {
		case layout == "relational":
			return notExplained("layout=relational updates through several statements (row update, child rows deleted and inserted)"), nil
		case u.Mode == db.Merge:
			return explain("merge", key, u.Doc)
		case u.Mode == db.Replace:
			d := u.Doc
			if layout == "document" {
				d = db.AppendWithKey(nil, st.Key, u.Doc)
			}
			return explain("replace", key, d)
		}
		stmt, err := ss.partialStmt(ctx, len(u.Paths))
		if err != nil {
			return db.Plan{}, err
		}
		args := []any{key}
		for i, p := range u.Paths {
			args = append(args, db.PathSegments(p), u.Values[i])
		}
		return explain(stmt, args...)
	case db.StmtInsert:
		switch layout {
		case "relational":
			return notExplained("layout=relational inserts a row and its child rows"), nil
		case "document":
			return explain("insert", db.AppendWithKey(nil, st.Key, st.Doc))
		}
		return explain("insert", st.Key, st.Doc)
	case db.StmtQuery:
		return ss.explainQuery(ctx, st)
	}
	return db.Plan{}, fmt.Errorf("postgres explain: statement kind %d", st.Kind)
}

// explainQuery prepares the query's statement under a name of its own (one
// per text) and explains it.
func (ss *session) explainQuery(ctx context.Context, st *db.Statement) (db.Plan, error) {
	q := st.Query
	sql, err := ss.st.querySQL(q)
	if err != nil {
		return db.Plan{}, err
	}
	h := fnv.New64a()
	h.Write([]byte(sql))
	name := fmt.Sprintf("explainq%x", h.Sum64())
	if _, err := ss.conn.Prepare(ctx, name, sql); err != nil {
		return db.Plan{}, fmt.Errorf("postgres prepare: %w (statement: %s)", err, sql)
	}
	return ss.explain(ctx, st.Kind, name, appendQueryArgs(nil, q))
}

// notExplained is the plan of a statement docbench does not explain.
func notExplained(why string) db.Plan { return db.Plan{Access: "not explained: " + why} }

// literal renders a parameter as SQL for EXECUTE name(…).
func literal(a any) string {
	switch v := a.(type) {
	case nil:
		return "NULL"
	case []byte:
		return quoteLiteral(string(v))
	case string:
		return quoteLiteral(v)
	case int:
		return strconv.Itoa(v)
	case []string:
		return quoteLiteral(textArray(v))
	}
	return quoteLiteral(fmt.Sprint(a))
}

// explain shows the plan of the prepared statement stmt, of kind k, bound
// to args. A plan it cannot get is said in the plan; the error is the
// session's, left planning without sequential scans.
func (ss *session) explain(ctx context.Context, k db.StatementKind, stmt string, args []any) (db.Plan, error) {
	var text string
	err := ss.conn.QueryRow(ctx, "SELECT statement FROM pg_prepared_statements WHERE name = $1", stmt).Scan(&text)
	p := db.Plan{Statement: strings.TrimSpace(text)}
	if err != nil {
		p.Access = "not explained: " + oneLine(err)
		return p, nil
	}
	args = ss.hstoreExplainArgs(stmt, args)
	lits := make([]string, len(args))
	for i, a := range args {
		lits[i] = literal(a)
	}
	exec := "EXECUTE " + pgx.Identifier{stmt}.Sanitize()
	if len(lits) > 0 {
		exec += "(" + strings.Join(lits, ", ") + ")"
	}
	raw, nodes, err := ss.explainJSON(ctx, exec)
	if err != nil {
		p.Access = "not explained: " + oneLine(err)
		return p, nil
	}
	p.Plan = raw
	p.Access = access(nodes)
	if k == db.StmtInsert {
		return p, nil
	}
	if seq := seqScans(nodes); len(seq) > 0 && !usesIndex(nodes) {
		// Could an index serve it at all? Ask with sequential scans off.
		p.Flag = "no index used: Seq Scan on " + strings.Join(seq, ", ")
		if _, err := ss.conn.Exec(ctx, "SET enable_seqscan = off"); err == nil {
			_, forced, err := ss.explainJSON(ctx, exec)
			if rerr := ss.resetSeqscan(ctx); rerr != nil {
				return p, rerr
			}
			if err == nil && usesIndex(forced) {
				p.Flag += " (the planner preferred it; an index can serve it: " + access(forced) + ")"
			} else if err == nil {
				p.Flag += " (no index can serve this statement)"
			}
		}
	}
	return p, nil
}

// resetSeqscan turns sequential scans back on after explain turned them
// off, even when ctx has ended meanwhile (a bounded wait of its own): the
// session's later statements must not be planned without them.
func (ss *session) resetSeqscan(ctx context.Context) error {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if _, err := ss.conn.Exec(rctx, "RESET enable_seqscan"); err != nil {
		return fmt.Errorf("postgres explain: RESET enable_seqscan (the session would plan without sequential scans): %w", err)
	}
	return nil
}

// planNode is the part of an EXPLAIN (FORMAT JSON) node docbench reads.
type planNode struct {
	NodeType  string     `json:"Node Type"`
	Operation string     `json:"Operation"`
	Relation  string     `json:"Relation Name"`
	Index     string     `json:"Index Name"`
	Plans     []planNode `json:"Plans"`
}

func (ss *session) explainJSON(ctx context.Context, exec string) (string, []planNode, error) {
	var raw string
	if err := ss.conn.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+exec, pgx.QueryExecModeSimpleProtocol).Scan(&raw); err != nil {
		return "", nil, err
	}
	var top []struct {
		Plan planNode `json:"Plan"`
	}
	if err := json.Unmarshal([]byte(raw), &top); err != nil {
		return raw, nil, fmt.Errorf("EXPLAIN output: %w", err)
	}
	var nodes []planNode
	var walk func(n planNode)
	walk = func(n planNode) {
		nodes = append(nodes, n)
		for _, c := range n.Plans {
			walk(c)
		}
	}
	for _, t := range top {
		walk(t.Plan)
	}
	return raw, nodes, nil
}

// access summarises the scans of a plan: "Index Scan using usertable_pkey on usertable".
func access(nodes []planNode) string {
	var parts []string
	for _, n := range nodes {
		switch {
		case n.NodeType == "ModifyTable":
			parts = append(parts, n.Operation+" on "+n.Relation)
		case n.Index != "" && n.Relation != "":
			parts = append(parts, n.NodeType+" using "+n.Index+" on "+n.Relation)
		case n.Index != "":
			parts = append(parts, n.NodeType+" using "+n.Index)
		case n.Relation != "":
			parts = append(parts, n.NodeType+" on "+n.Relation)
		}
	}
	if len(parts) == 0 && len(nodes) > 0 {
		return nodes[0].NodeType
	}
	return strings.Join(parts, " → ")
}

func seqScans(nodes []planNode) []string {
	var out []string
	for _, n := range nodes {
		if n.NodeType == "Seq Scan" {
			out = append(out, n.Relation)
		}
	}
	return out
}

func usesIndex(nodes []planNode) bool {
	for _, n := range nodes {
		if n.Index != "" {
			return true
		}
	}
	return false
}
