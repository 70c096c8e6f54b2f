package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// shardFlags are load's and run's flags for running one shard of a phase.
type shardFlags struct {
	shard   string
	startAt string
}

func (f *shardFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.shard, "shard", "", "run shard K of N (K/N, K from 0; auto/N reads JOB_COMPLETION_INDEX): a load inserts its slice of the keys, a run its share of operationcount and --rate")
	fl.StringVar(&f.startAt, "start-at", "", "begin at this wall-clock instant (RFC 3339, or +30s from now), so that shards line up")
}

// shardSpec is what shardFlags parse to.
type shardSpec struct {
	shard   workload.Shard
	startAt time.Time
}

func (f *shardFlags) parse(now time.Time) (shardSpec, error) {
	var s shardSpec
	if f.shard != "" {
		sh, err := workload.ParseShard(f.shard, os.LookupEnv)
		if err != nil {
			return s, &ExitError{Code: 2, Err: err}
		}
		s.shard = sh
	}
	if f.startAt != "" {
		t, err := parseStartAt(f.startAt, now)
		if err != nil {
			return s, &ExitError{Code: 2, Err: err}
		}
		s.startAt = t
	}
	return s, nil
}

// parseStartAt reads an RFC 3339 instant or +DURATION from now.
func parseStartAt(v string, now time.Time) (time.Time, error) {
	v = strings.TrimSpace(v)
	if d, ok := strings.CutPrefix(v, "+"); ok {
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 instant (2026-11-23T09:00:00Z) or +DURATION (+30s)", v)
		}
		return now.Add(dur), nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, fmt.Errorf("--start-at %q: want an RFC 3339 instant (2026-11-23T09:00:00Z) or +DURATION (+30s)", v)
	}
	return t, nil
}

// used reports whether the phase runs as a shard or at a set instant.
func (s shardSpec) used() bool { return s.shard.Count > 0 || !s.startAt.IsZero() }

// setupShared creates the table of a shard's load without dropping it:
// another shard may already be writing into it. Shards that create it at
// the same moment can collide in the catalog; a few retries settle that.
func setupShared(ctx context.Context, store db.Store, schema db.Schema) error {
	var err error
	for attempt := range 4 {
		var notOurs *db.ErrNotOurs
		if err = store.Setup(ctx, schema, false); err == nil || errors.As(err, &notOurs) {
			return err
		}
		select {
		case <-time.After(time.Duration(100*(attempt+1)) * time.Millisecond):
		case <-ctx.Done():
			return err
		}
	}
	return err
}

// shardResult records the shard, host, clock and real start on a result,
// and the per-second histograms a merge needs.
func shardResult(res *report.Result, out *runner.Outcome, s shardSpec, wl *workload.Workload) {
	sh := s.shard
	if sh.Count == 0 {
		sh = workload.Shard{Index: 0, Count: 1}
	}
	info := &report.Shard{Index: sh.Index, Count: sh.Count, Host: res.Environment.Hostname,
		Began: out.Began.UTC(), Clock: report.ReadClock()}
	if !s.startAt.IsZero() {
		at := s.startAt.UTC()
		late := float64(out.Began.Sub(s.startAt)) / 1e6
		info.StartAt, info.LateMS = &at, &late
		if late > 1000 {
			res.Notes = append(res.Notes, fmt.Sprintf("began %.1f s after --start-at %s: the instant had passed when the phase was ready",
				late/1e3, at.Format(time.RFC3339)))
		}
	}
	if out.Phase == runner.Load {
		start, n := wl.LoadRange()
		info.LoadStart, info.LoadCount = &start, &n
	}
	res.Shard = info
	report.EncodeSeries(res, out)
}
