package sqlite

import (
	"context"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/sqldb"
)

var _ db.StatementExplainer = (*session)(nil)

// ExplainStatement shows the plan of the statement the session prepares
// for st, bound as the session's operation binds st's values: EXPLAIN
// QUERY PLAN of its text. Access is the plan's text (its lines joined by
// "; "), Plan the plan as a tree. A key lookup, update or secondary query
// whose plan reads the table with a full SCAN (no "USING INDEX", "USING
// COVERING INDEX", "USING PRIMARY KEY" or "USING INTEGER PRIMARY KEY", and
// not a SEARCH) is flagged.
func (ss *session) ExplainStatement(ctx context.Context, st *db.Statement) (db.Plan, error) {
	key := sqldb.Text(st.Key)
	switch {
	case st.Kind == db.StmtUpdate && st.Update.Mode == db.Replace:
		return ss.explain(ctx, st, ss.Texts[ss.replace], []any{sqldb.Text(st.Update.Doc), key}), nil
	case st.Kind == db.StmtInsert:
		return ss.explain(ctx, st, ss.Texts[ss.insert], []any{key, sqldb.Text(st.Doc)}), nil
	case st.Kind == db.StmtQuery:
		q := st.Query
		text, args, err := ss.querySQL(q)
		if err != nil {
			return db.Plan{}, err
		}
		if q.Kind != db.QueryAggregate {
			limit := -1
			if q.Limit > 0 {
				limit = q.Limit
			}
			args = append(args, limit, q.Offset)
		}
		return ss.explain(ctx, st, text, args), nil
	}
	// reads, scans, merges and partial updates
	stmt, args, err := ss.StatementArgs(ctx, st, ss.read, ss.scan)
	if err != nil {
		return db.Plan{}, err
	}
	return ss.explain(ctx, st, ss.Texts[stmt], args), nil
}

// eqpRow is one row of EXPLAIN QUERY PLAN.
type eqpRow struct {
	id, parent int
	detail     string
}

// explain shows the plan of st's statement, text bound to args.
func (ss *session) explain(ctx context.Context, st *db.Statement, text string, args []any) db.Plan {
	p := db.Plan{Statement: text}
	if text == "" {
		p.Access = "not explained: the statement's text is unknown"
		return p
	}
	rows, err := ss.Conn.QueryContext(ctx, "EXPLAIN QUERY PLAN "+text, args...)
	if err != nil {
		p.Access = "not explained: " + oneLine(err)
		return p
	}
	defer rows.Close()
	var plan []eqpRow
	for rows.Next() {
		var r eqpRow
		var notused int
		if err := rows.Scan(&r.id, &r.parent, &notused, &r.detail); err != nil {
			p.Access = "not explained: " + oneLine(err)
			return p
		}
		plan = append(plan, r)
	}
	if err := rows.Err(); err != nil {
		p.Access = "not explained: " + oneLine(err)
		return p
	}
	if len(plan) == 0 {
		// INSERT … VALUES reads no table: SQLite has nothing to show.
		p.Access = "no table read (EXPLAIN QUERY PLAN shows no step)"
		return p
	}
	details := make([]string, len(plan))
	for i, r := range plan {
		details[i] = r.detail
	}
	p.Access = strings.Join(details, "; ")
	p.Plan = planTree(plan)
	if st.Kind == db.StmtInsert {
		return p
	}
	if scans := fullScans(plan, strings.Trim(ss.Table, `"`)); len(scans) > 0 {
		p.Flag = "no index used: " + strings.Join(scans, "; ")
		switch {
		case st.Kind != db.StmtQuery:
		case st.Query.Kind == db.QueryAggregate:
			p.Flag += " (the aggregate groups every document)"
		case st.Query.Kind == db.QueryArray:
			p.Flag += " (SQLite has no index over array elements)"
		}
	}
	return p
}

// planTree renders the rows as SQLite's shell does: one line per step,
// indented under its parent.
func planTree(plan []eqpRow) string {
	depth := map[int]int{}
	var b strings.Builder
	b.WriteString("QUERY PLAN\n")
	for _, r := range plan {
		d := depth[r.parent] + 1
		depth[r.id] = d
		b.WriteString(strings.Repeat("  ", d-1) + "|--" + r.detail + "\n")
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// fullScans returns the steps that read table whole: "SCAN usertable"
// without an index. SEARCH steps use an index; json_each and subquery scans
// read one document's array, not the table.
func fullScans(plan []eqpRow, table string) []string {
	var out []string
	for _, r := range plan {
		rest, ok := strings.CutPrefix(r.detail, "SCAN ")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(rest, " ")
		if name != table || usesIndex(rest) {
			continue
		}
		out = append(out, r.detail)
	}
	return out
}

func usesIndex(detail string) bool {
	for _, s := range []string{"USING INDEX", "USING COVERING INDEX", "USING PRIMARY KEY", "USING INTEGER PRIMARY KEY", "USING ROWID"} {
		if strings.Contains(detail, s) {
			return true
		}
	}
	return false
}

func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
