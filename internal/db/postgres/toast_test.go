package postgres

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

// TestToastForms stores documents of three kinds — small, large and
// compressible, large and incompressible — and checks the shares the probe
// reports: in line, compressed in line, out of line (PostgreSQL 17+; on 15
// those are absent with the reason, the compressed share is there).
func TestToastForms(t *testing.T) {
	ctx := context.Background()
	for _, server := range []string{"embedded", "debian"} {
		t.Run(server, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, server)), map[string]string{})
			sess := openSession(t, ctx, st, "v")
			r := rand.New(rand.NewPCG(1, 2))
			random := func(n int) string {
				b := make([]byte, n)
				for i := range b {
					b[i] = byte('a' + r.IntN(26))
				}
				return string(b)
			}
			for i := range 10 { // 10 small, 10 compressible 4 kB (in line once compressed), 20 random 16 kB (out of line)
				docs := []string{fmt.Sprintf(`{"v":"%d"}`, i), `{"v":"` + strings.Repeat("ab", 2000) + `"}`,
					`{"v":"` + random(16000) + `"}`, `{"v":"` + random(16000) + `"}`}
				for j, d := range docs {
					if err := sess.Insert(ctx, fmt.Appendf(nil, "k%d-%d", i, j), []byte(d)); err != nil {
						t.Fatal(err)
					}
				}
			}
			snap, err := st.Probe(ctx)
			if err != nil {
				t.Fatal(err)
			}
			g := snap.Gauges
			if f := g["doc_sample"]; f.Value != 40 {
				t.Errorf("doc_sample = %+v, want 40", f)
			}
			if f := g["doc_compressed_share"]; !f.OK() || f.Value != 0.25 {
				t.Errorf("doc_compressed_share = %+v, want 0.25", f)
			}
			if f := g["doc_stored_to_raw"]; !f.OK() || f.Value <= 0 || f.Value >= 1 {
				t.Errorf("doc_stored_to_raw = %+v, want between 0 and 1", f)
			}
			want := map[string]float64{"doc_inline_share": 0.25, "doc_compressed_inline_share": 0.25, "doc_external_share": 0.5}
			for k, v := range want {
				f := g[k]
				if server == "debian" {
					if f.OK() || !strings.Contains(f.Absent, "PostgreSQL 17") {
						t.Errorf("%s on PostgreSQL 15 = %+v, want absent, needing 17", k, f)
					}
					continue
				}
				if !f.OK() || f.Value != v {
					t.Errorf("%s = %+v, want %g", k, f, v)
				}
			}
		})
	}
}
