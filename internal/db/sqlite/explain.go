package sqlite

import (
	"context"
	"database/sql"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var _ db.Explainer = (*store)(nil)

// Explain shows the plan of each statement the request's operations use:
// EXPLAIN QUERY PLAN of the text a session prepares, bound to representative
// parameters. Access is the plan's text (its lines joined by "; "), Plan
// the plan as a tree. A key lookup, update or secondary query whose plan
// reads the table with a full SCAN (no "USING INDEX", "USING COVERING
// INDEX", "USING PRIMARY KEY" or "USING INTEGER PRIMARY KEY", and not a
// SEARCH) is flagged.
func (s *store) Explain(ctx context.Context, r *db.ExplainRequest) ([]db.Plan, error) {
	sess, err := s.NewSession(ctx)
	if err != nil {
		return nil, err
	}
	defer sess.Close()
	ss := sess.(*session)
	var plans []db.Plan
	explain := func(op string, st *sql.Stmt, args ...any) {
		plans = append(plans, ss.explain(ctx, op, ss.Texts[st], args))
	}
	key := string(r.Key)
	if r.Has("READ") || r.Has("READ-MODIFY-WRITE") {
		for i, f := range r.Reads {
			if i == 2 {
				break // projections of other fields plan alike
			}
			st := ss.read
			if f != nil {
				p, err := ss.Projection(ctx, f, false)
				if err != nil {
					return plans, err
				}
				st = p.Stmt
			}
			explain("READ", st, key)
		}
	}
	if r.Has("SCAN") {
		st := ss.scan
		if len(r.Reads) > 0 && r.Reads[0] != nil {
			p, err := ss.Projection(ctx, r.Reads[0], true)
			if err != nil {
				return plans, err
			}
			st = p.Stmt
		}
		explain("SCAN", st, key, r.ScanCount)
	}
	if (r.Has("UPDATE") || r.Has("READ-MODIFY-WRITE")) && r.Update != nil {
		u := r.Update
		switch u.Mode {
		case db.Merge, db.Partial:
			st, err := ss.PartialStmt(ctx, len(u.Paths))
			if err != nil {
				return plans, err
			}
			var args []any
			for i, p := range u.Paths {
				args = append(args, jsonPath(p), string(u.Values[i]))
			}
			explain("UPDATE", st, append(args, key)...)
		case db.Replace:
			explain("UPDATE", ss.replace, string(u.Doc), key)
		}
	}
	if r.Has("INSERT") {
		explain("INSERT", ss.insert, key, string(r.Doc))
	}
	for i := range r.Queries {
		q := &r.Queries[i]
		op := "QUERY-" + strings.ToUpper(q.Kind.String())
		if !r.Has(op) {
			continue
		}
		text, args, err := ss.querySQL(q)
		if err != nil {
			return plans, err
		}
		if q.Kind != db.QueryAggregate {
			limit := -1
			if q.Limit > 0 {
				limit = q.Limit
			}
			args = append(args, limit, q.Offset)
		}
		plans = append(plans, ss.explain(ctx, op, text, args))
	}
	return plans, nil
}

// eqpRow is one row of EXPLAIN QUERY PLAN.
type eqpRow struct {
	id, parent int
	detail     string
}

func (ss *session) explain(ctx context.Context, op, text string, args []any) db.Plan {
	p := db.Plan{Op: op, Statement: text}
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
	if op == "INSERT" {
		return p
	}
	if scans := fullScans(plan, strings.Trim(ss.Table, `"`)); len(scans) > 0 {
		p.Flag = "no index used: " + strings.Join(scans, "; ")
		switch op {
		case "QUERY-AGGREGATE":
			p.Flag += " (the aggregate groups every document)"
		case "QUERY-ARRAY":
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
