package null

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/db"
)

func TestDelay(t *testing.T) {
	ctx := context.Background()
	st, err := db.Open(ctx, db.OpenRequest{Target: "null:", Props: map[string]string{"null.delay": "2ms"}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.NewSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		t0 := time.Now()
		if _, err := s.Read(ctx, []byte("k"), nil, nil); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(t0); d < 2*time.Millisecond {
			t.Fatalf("a read took %v under null.delay=2ms", d)
		}
	}
	if info, _ := st.Info(ctx); info.Settings["null.delay"] != "2ms" {
		t.Errorf("info %+v", info)
	}
	if _, err := db.Open(ctx, db.OpenRequest{Target: "null:", Props: map[string]string{"null.delay": "soon"}}); err == nil || !strings.Contains(err.Error(), `null.delay="soon"`) {
		t.Errorf("bad delay: %v", err)
	}
}
