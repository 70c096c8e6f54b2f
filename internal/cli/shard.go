package cli

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/docbench/docbench/internal/engine"
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

func (f *shardFlags) parse(now time.Time) (engine.Shard, error) {
	var s engine.Shard
	if f.shard != "" {
		sh, err := workload.ParseShard(f.shard, os.LookupEnv)
		if err != nil {
			return s, &ExitError{Code: 2, Err: err}
		}
		s.Shard = sh
	}
	if f.startAt != "" {
		t, err := parseStartAt(f.startAt, now)
		if err != nil {
			return s, &ExitError{Code: 2, Err: err}
		}
		s.StartAt = t
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
