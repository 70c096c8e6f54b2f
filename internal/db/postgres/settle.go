package postgres

import (
	"context"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

var _ db.Settler = (*store)(nil)

// Settle runs VACUUM (ANALYZE) on the loaded tables, as pgbench's
// initialization does: the planner gets statistics, the visibility map is
// set, and GIN entries still in the pending list (fastupdate) move into the
// index. Without it the first run after a load measures whatever
// autovacuum has not reached yet: key lookups through a GIN index ran 5–30×
// slower until it had (the index-strategy study, 2026-11-23). With
// pg.vacuum=run it vacuums before each run too, as pgbench does by default,
// so that the rounds of a study start alike: otherwise the next round's
// reads find what a round's updates left, GIN's pending entries and dead
// row versions (the hstore study).
func (s *store) Settle(ctx context.Context, when db.SettleStage) (string, error) {
	switch mode := s.cfg.Prop("pg.vacuum", "analyze"); {
	case mode == "none", when == db.BeforeRun && mode != "run":
		return "", nil
	}
	tables := []string{s.table}
	for _, c := range s.cols {
		if c.child != "" {
			tables = append(tables, c.child)
		}
	}
	q := "VACUUM (ANALYZE) " + strings.Join(tables, ", ")
	if _, err := s.admin.Exec(ctx, q); err != nil {
		return q, fmt.Errorf("%s: %w", q, err)
	}
	return q, nil
}
