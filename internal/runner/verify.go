package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/workload"
)

// Verification is what Verify found in the load range, record by record.
type Verification struct {
	Records int64 // records of the load range
	// Intact records equal the generated document; Updated ones have its
	// fields with values of the same types (what updates produce).
	Intact, Updated  int64
	Missing, Corrupt int64
	// FirstCorrupt are the keys of the first corrupt records found (at most
	// three).
	FirstCorrupt []string
}

// OK reports whether no record is missing or corrupt.
func (v *Verification) OK() bool { return v.Missing == 0 && v.Corrupt == 0 }

// verdict classifies a stored document against the generated one.
type verdict int

const (
	intact verdict = iota
	updated
	corrupt
)

// Verify reads every record of wl's load range (insertstart, insertcount)
// on threads sessions of store and compares it with the document docOps
// generates for its key. A read error stops it; cancellation returns
// ErrInterrupted.
func Verify(ctx context.Context, store db.Store, wl *workload.Workload, docOps *DocOps, threads int) (*Verification, error) {
	start, n := wl.LoadRange()
	var next atomic.Int64
	next.Store(start)
	var counts [3]atomic.Int64
	var missing atomic.Int64
	var mu sync.Mutex
	var firstBad []string
	var wg sync.WaitGroup
	errs := make([]error, threads)
	for i := range threads {
		sess, err := store.NewSession(ctx)
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer sess.Close()
			th := wl.NewThread(i)
			dr := document.NewRand()
			var key, want, got []byte
			for ctx.Err() == nil {
				k := next.Add(1) - 1
				if k >= start+n {
					return
				}
				key = th.AppendKey(key[:0], k)
				want = docOps.Shape.AppendDoc(want[:0], key, k, dr)
				got, err = sess.Read(ctx, key, nil, got[:0])
				if errors.Is(err, db.ErrNotFound) {
					missing.Add(1)
					continue
				}
				if err != nil {
					errs[i] = fmt.Errorf("reading %s: %w", key, err)
					return
				}
				v := compareDocs(got, want)
				counts[v].Add(1)
				if v == corrupt {
					mu.Lock()
					if len(firstBad) < 3 {
						firstBad = append(firstBad, string(key))
					}
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ErrInterrupted
	}
	return &Verification{Records: n, Intact: counts[intact].Load(), Updated: counts[updated].Load(),
		Missing: missing.Load(), Corrupt: counts[corrupt].Load(), FirstCorrupt: firstBad}, nil
}

func compareDocs(stored, want []byte) verdict {
	if bytes.Equal(stored, want) {
		return intact
	}
	var s, w map[string]any
	if json.Unmarshal(stored, &s) != nil || json.Unmarshal(want, &w) != nil {
		return corrupt
	}
	same := true
	for k, wv := range w {
		sv, ok := s[k]
		if !ok || fmt.Sprintf("%T", sv) != fmt.Sprintf("%T", wv) && wv != nil && sv != nil {
			return corrupt
		}
		same = same && jsonEqual(sv, wv)
	}
	if len(s) != len(w) {
		return corrupt
	}
	if same {
		return intact
	}
	return updated
}

func jsonEqual(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}
