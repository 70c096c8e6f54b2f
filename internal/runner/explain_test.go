package runner

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/workload"
)

// The explain request holds the statements the phase runs, in report
// order, each named as the phase's measured operation is, with a stored key
// and values of the operations' shape.
func TestExplainRequest(t *testing.T) {
	for _, tc := range []struct {
		name  string
		file  string
		props map[string]string
		phase Phase
		ops   []string
		check func(t *testing.T, sts []db.Statement)
	}{
		{name: "load", file: "workloada", phase: Load, ops: []string{"INSERT"}},
		{name: "a", file: "workloada", phase: Run, ops: []string{"READ", "UPDATE"}, check: func(t *testing.T, sts []db.Statement) {
			if sts[0].Fields != nil {
				t.Errorf("readallfields: read of %q, want the whole document", sts[0].Fields)
			}
			u := sts[1].Update
			if u.Mode != db.Merge || !reflect.DeepEqual(u.Paths, []string{"field0"}) || len(u.Values) != 1 || !json.Valid(u.Doc) {
				t.Errorf("update %+v: want a merge of field0", u)
			}
		}},
		{name: "c", file: "workloadc", phase: Run, ops: []string{"READ"}},
		{name: "e", file: "workloade", phase: Run, ops: []string{"SCAN", "INSERT"}, check: func(t *testing.T, sts []db.Statement) {
			if sts[0].Count != 100 || sts[0].Fields != nil {
				t.Errorf("scan of %d documents, fields %q: want 100 (maxscanlength), all fields", sts[0].Count, sts[0].Fields)
			}
		}},
		{name: "f", file: "workloadf", phase: Run, ops: []string{"READ", "UPDATE"}},
		{name: "projections", file: "workloadc", props: map[string]string{"readallfields": "false", "scanproportion": "0.5"}, phase: Run,
			ops: []string{"READ", "READ", "SCAN"}, check: func(t *testing.T, sts []db.Statement) {
				// Ten one-field projections: two plans stand for them all.
				if !reflect.DeepEqual(sts[0].Fields, []string{"field0"}) || !reflect.DeepEqual(sts[1].Fields, []string{"field1"}) ||
					!reflect.DeepEqual(sts[2].Fields, []string{"field0"}) {
					t.Errorf("fields %q %q %q: want field0, field1, field0", sts[0].Fields, sts[1].Fields, sts[2].Fields)
				}
			}},
		{name: "partial", file: "workloada", props: map[string]string{"updatemode": "partial"}, phase: Run, ops: []string{"READ", "UPDATE"},
			check: func(t *testing.T, sts []db.Statement) {
				if u := sts[1].Update; u.Mode != db.Partial || len(u.Paths) != 1 || len(u.Values) != 1 {
					t.Errorf("update %+v: want a partial update of one path", u)
				}
			}},
		{name: "replace", file: "workloada", props: map[string]string{"updatemode": "replace"}, phase: Run, ops: []string{"READ", "UPDATE"},
			check: func(t *testing.T, sts []db.Statement) {
				if u := sts[1].Update; u.Mode != db.Replace || u.Paths != nil || !json.Valid(u.Doc) {
					t.Errorf("update %+v: want a replacement document", u)
				}
			}},
		{name: "query", file: "workloada", props: map[string]string{"document.shape": "reviews", "querykind": "range", "query.path": "review_date",
			"readproportion": "0.5", "updateproportion": "0", "queryproportion": "0.5"}, phase: Run, ops: []string{"READ", "QUERY-RANGE"},
			check: func(t *testing.T, sts []db.Statement) {
				if q := sts[1].Query; q == nil || q.Kind != db.QueryRange || q.Path != "review_date" || q.Value == nil {
					t.Errorf("query %+v: want a range query on review_date with a value from the data", q)
				}
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wl, docOps := newDocOps(t, tc.file, tc.props)
			sts := docOps.ExplainRequest(wl, tc.phase).Statements
			var ops []string
			for _, st := range sts {
				ops = append(ops, st.Op())
			}
			if !reflect.DeepEqual(ops, tc.ops) {
				t.Fatalf("statements %q, want %q", ops, tc.ops)
			}
			start, _ := wl.LoadRange()
			key := wl.NewThread(0).AppendKey(nil, start)
			names := map[db.StatementKind]workload.Op{db.StmtRead: workload.OpRead, db.StmtScan: workload.OpScan,
				db.StmtUpdate: workload.OpUpdate, db.StmtInsert: workload.OpInsert, db.StmtQuery: workload.OpQuery}
			for _, st := range sts {
				if st.Op() != docOps.opName(names[st.Kind]) {
					t.Errorf("%s: the phase reports the operation as %s", st.Op(), docOps.opName(names[st.Kind]))
				}
				if st.Kind != db.StmtQuery && string(st.Key) != string(key) {
					t.Errorf("%s: key %q, want the first loaded key %q", st.Op(), st.Key, key)
				}
				if st.Kind == db.StmtInsert && !json.Valid(st.Doc) {
					t.Errorf("insert of %q: want a JSON document", st.Doc)
				}
			}
			if tc.check != nil {
				tc.check(t, sts)
			}
		})
	}
}
