package workload

import (
	"fmt"
	"strconv"
	"strings"
)

// Shard is one of Count client processes that together run one workload
// (docbench load/run --shard K/N). Index is 0-based, as Kubernetes'
// JOB_COMPLETION_INDEX: the shards of N are 0 … N-1. The zero value (and
// any Count of 1) is an unsharded workload.
type Shard struct {
	Index int
	Count int
}

// JobIndexEnv is the variable a Kubernetes Indexed Job sets to a pod's
// completion index; ParseShard reads it for "auto/N".
const JobIndexEnv = "JOB_COMPLETION_INDEX"

// Sharded reports whether s splits the workload (Count > 1).
func (s Shard) Sharded() bool { return s.Count > 1 }

// String renders s as K/N.
func (s Shard) String() string { return strconv.Itoa(s.Index) + "/" + strconv.Itoa(s.Count) }

// ParseShard reads "K/N" (0 ≤ K < N) or "auto/N", where K comes from the
// JOB_COMPLETION_INDEX variable looked up with getenv.
func ParseShard(v string, getenv func(string) (string, bool)) (Shard, error) {
	ks, ns, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want K/N (shards numbered from 0, e.g. 0/4 … 3/4) or auto/N", v)
	}
	n, err := strconv.Atoi(strings.TrimSpace(ns))
	if err != nil || n < 1 {
		return Shard{}, fmt.Errorf("--shard %q: N must be a whole number of shards ≥ 1", v)
	}
	ks = strings.TrimSpace(ks)
	src := ""
	if ks == "auto" {
		idx, set := getenv(JobIndexEnv)
		if !set {
			return Shard{}, fmt.Errorf("--shard %q: %s is not set (a Kubernetes Indexed Job sets it; elsewhere give K/N)", v, JobIndexEnv)
		}
		ks, src = strings.TrimSpace(idx), " ("+JobIndexEnv+"="+idx+")"
	}
	k, err := strconv.Atoi(ks)
	if err != nil {
		return Shard{}, fmt.Errorf("--shard %q%s: K must be a whole number", v, src)
	}
	if k < 0 || k >= n {
		return Shard{}, fmt.Errorf("--shard %q%s: K must be 0 … %d (shards are numbered from 0, as %s)", v, src, n-1, JobIndexEnv)
	}
	return Shard{Index: k, Count: n}, nil
}

// Split returns the Index-th of Count nearly equal consecutive slices of
// [0, total): its offset and length. The slices cover [0, total) exactly,
// the first total%Count being one longer.
func (s Shard) Split(total int64) (offset, n int64) {
	if !s.Sharded() {
		return 0, total
	}
	c, k := int64(s.Count), int64(s.Index)
	n = total / c
	offset = k*n + min(k, total%c)
	if k < total%c {
		n++
	}
	return offset, n
}

// ApplyShard makes c the configuration of shard s: its share of
// operationcount (operationcount/N, the remainder going to the first shards;
// 0 stays 0, "run until maxexecutiontime") and of the target rate (target/N).
// The load range and the transaction insert keys are split by New.
func (c *Config) ApplyShard(s Shard) {
	c.Shard = s
	if !s.Sharded() {
		return
	}
	if c.OperationCount > 0 {
		_, c.OperationCount = s.Split(c.OperationCount)
	}
	c.Target /= float64(s.Count)
}

// shardSeed is the seed of a shard's random streams: a function of (seed,
// index), different for every shard, so that shards never replay each
// other's choices.
func shardSeed(seed uint64, s Shard) uint64 {
	if !s.Sharded() {
		return seed
	}
	return splitmix64(seed ^ splitmix64(uint64(s.Index)|1<<62))
}

// Key numbers of transaction inserts. Each shard counts its own inserts in
// a local sequence (recordcount, recordcount+1, …) with its own
// acknowledged counter, exactly as one YCSB client does; the i-th insert of
// shard K of N stores key number recordcount + i·N + K, so shards insert
// disjoint, interleaved keys. A shard's key choosers draw in its local
// sequence: it reads the loaded records and its own acknowledged inserts,
// never a key another shard may not have inserted yet.

// toGlobal maps a local key number to the key number stored.
func (w *Workload) toGlobal(v int64) int64 {
	s := w.cfg.Shard
	if !s.Sharded() || v < w.insertBase {
		return v
	}
	return w.insertBase + (v-w.insertBase)*int64(s.Count) + int64(s.Index)
}

// toLocal is the inverse of toGlobal for key numbers of this shard.
func (w *Workload) toLocal(k int64) int64 {
	s := w.cfg.Shard
	if !s.Sharded() || k < w.insertBase {
		return k
	}
	return w.insertBase + (k-w.insertBase)/int64(s.Count)
}
