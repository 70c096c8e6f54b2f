package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Op is a YCSB core operation type.
type Op uint8

// The core operations, in the order YCSB's operation chooser tests them.
const (
	OpRead Op = iota
	OpUpdate
	OpInsert
	OpScan
	OpReadModifyWrite
	OpQuery     // a secondary query (docbench's extension; reported as QUERY-<KIND>)
	OpStatement // a statement of the user's (docbench's extension; STATEMENT[-NAME])
	NumOps      // number of operation types
)

var opNames = [NumOps]string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE", "QUERY", "STATEMENT"}

// String returns the name YCSB reports the operation under.
func (o Op) String() string {
	if o < NumOps {
		return opNames[o]
	}
	return "Op(" + strconv.Itoa(int(o)) + ")"
}

// Workload is the state of a YCSB core workload shared by all workers, built
// as CoreWorkload.init builds it. Its counters are atomic; per-worker state
// lives in Thread.
type Workload struct {
	cfg  *Config
	seed uint64

	loadSeq          *Counter // keysequence: CounterGenerator(insertstart)
	loadStart, loadN int64
	keyStart, keyN   int64                // the whole load range, whatever the shard
	txnSeq           *AcknowledgedCounter // transactioninsertkeysequence (shard-local, see toGlobal)
	insertBase       int64                // first transaction insert key number (recordcount)

	ops          Discrete
	keychooser   NumberGenerator // shared; nil for latest (per thread) and exponential
	latest       *SkewedLatest   // template cloned by each thread
	exponential  *Exponential
	fieldLength  NumberGenerator
	fieldChooser *UniformLong
	scanLength   NumberGenerator
	fieldNames   []string
}

// New builds the workload described by cfg. seed and a worker's id determine
// that worker's random stream (see NewThread). Building a zipfian or latest
// key chooser, or zipfian field or scan lengths, computes zeta over the item
// count, which takes time linear in it, as in YCSB.
func New(cfg *Config, seed uint64) (*Workload, error) {
	if cfg == nil {
		return nil, errors.New("workload: nil config")
	}
	w := &Workload{cfg: cfg, seed: seed}
	recordcount := cfg.EffectiveRecordCount()
	start, count := cfg.InsertStart, cfg.InsertCount

	w.loadStart, w.loadN = start, count
	if cfg.RecordCount == 0 && !cfg.InsertCountSet {
		w.loadN = 0 // YCSB's client loads recordcount (0) records
	}
	// A shard loads its slice of [insertstart, insertstart+insertcount),
	// as if given its own insertstart and insertcount.
	w.keyStart, w.keyN = w.loadStart, w.loadN
	off, n := cfg.Shard.Split(w.loadN)
	w.loadStart, w.loadN = start+off, n
	w.loadSeq = NewCounter(w.loadStart)
	w.txnSeq = NewAcknowledgedCounter(recordcount)
	w.insertBase = recordcount

	for i, p := range []float64{cfg.ReadProportion, cfg.UpdateProportion, cfg.InsertProportion, cfg.ScanProportion, cfg.ReadModifyWriteProportion, cfg.Doc.QueryProp, cfg.Doc.StatementProp} {
		if p > 0 {
			w.ops.Add(p, int64(i))
		}
	}
	if w.ops.Len() == 0 {
		return nil, errors.New("workload: all operation proportions are 0")
	}

	switch cfg.RequestDistribution {
	case DistUniform:
		w.keychooser = NewUniformLong(start, start+count-1)
	case DistExponential:
		w.exponential = NewExponential(cfg.ExponentialPercentile, float64(recordcount)*cfg.ExponentialFrac)
	case DistSequential:
		w.keychooser = NewSequential(start, start+count-1)
	case DistZipfian:
		expectedNewKeys := int64(float64(cfg.OperationCount) * cfg.InsertProportion * 2.0) // 2 is YCSB's fudge factor
		w.keychooser = NewScrambledZipfian(start, start+count+expectedNewKeys)
	case DistLatest:
		w.latest = NewSkewedLatest(w.txnSeq)
	case DistHotspot:
		w.keychooser = NewHotspot(start, start+count-1, cfg.HotspotDataFraction, cfg.HotspotOpnFraction)
	default:
		return nil, fmt.Errorf("workload: unknown request distribution %q", cfg.RequestDistribution)
	}

	switch cfg.FieldLengthDistribution {
	case DistConstant:
		w.fieldLength = Constant(cfg.FieldLength)
	case DistUniform:
		w.fieldLength = NewUniformLong(int64(cfg.MinFieldLength), int64(cfg.FieldLength))
	case DistZipfian:
		w.fieldLength = NewZipfian(int64(cfg.MinFieldLength), int64(cfg.FieldLength))
	case DistHistogram:
		if cfg.Histogram == nil {
			return nil, errors.New("workload: histogram field length distribution without a histogram")
		}
		w.fieldLength = cfg.Histogram
	default:
		return nil, fmt.Errorf("workload: unknown field length distribution %q", cfg.FieldLengthDistribution)
	}

	w.fieldChooser = NewUniformLong(0, int64(cfg.FieldCount)-1)
	switch cfg.ScanLengthDistribution {
	case DistUniform:
		w.scanLength = NewUniformLong(int64(cfg.MinScanLength), int64(cfg.MaxScanLength))
	case DistZipfian:
		w.scanLength = NewZipfian(int64(cfg.MinScanLength), int64(cfg.MaxScanLength))
	default:
		return nil, fmt.Errorf("workload: unknown scan length distribution %q", cfg.ScanLengthDistribution)
	}

	w.fieldNames = make([]string, cfg.FieldCount)
	for i := range w.fieldNames {
		w.fieldNames[i] = cfg.FieldNamePrefix + strconv.Itoa(i)
	}
	return w, nil
}

// Config returns the configuration the workload was built from.
func (w *Workload) Config() *Config { return w.cfg }

// LoadRange returns the first key number and the number of records the load
// phase inserts: insertstart and insertcount (0 when neither recordcount nor
// insertcount is set, as YCSB's client loads recordcount records); for a
// shard, its slice of that range.
func (w *Workload) LoadRange() (start, count int64) { return w.loadStart, w.loadN }

// Keyspace returns the whole load range (insertstart, insertcount) whatever
// the shard: the records every shard's run phase may read.
func (w *Workload) Keyspace() (start, count int64) { return w.keyStart, w.keyN }

// Acknowledge reports that the transaction insert of keynum (from
// NextInsertKeynum) is finished. It must be called for every such key, even
// when the insert failed (YCSB does so in a finally block): the latest and
// the key-range checks follow the highest contiguously acknowledged key. It
// panics if more than 2^20 keys are outstanding, which only happens when
// keys go unacknowledged.
func (w *Workload) Acknowledge(keynum int64) {
	if err := w.txnSeq.Acknowledge(w.toLocal(keynum)); err != nil {
		panic(fmt.Sprintf("workload: Acknowledge(%d): %v", keynum, err))
	}
}

// FieldName returns the name of field i (fieldnameprefix + i).
func (w *Workload) FieldName(i int) string { return w.fieldNames[i] }

// FieldNames returns all field names in order; the slice must not be modified.
func (w *Workload) FieldNames() []string { return w.fieldNames }

// Thread is one worker's view of the workload: its random stream and the
// generators that keep per-worker state. A Thread must be used by one
// goroutine at a time.
type Thread struct {
	w          *Workload
	id         int
	rng        *rand.Rand
	keychooser NumberGenerator
}

// NewThread returns the state of worker id. Its random stream is a PCG
// seeded from (seed, id) — and the shard index, for a shard — so a run is
// reproducible for a given seed, worker count and shard.
func (w *Workload) NewThread(id int) *Thread {
	seed := shardSeed(w.seed, w.cfg.Shard)
	t := &Thread{
		w:          w,
		id:         id,
		rng:        rand.New(rand.NewPCG(splitmix64(seed), splitmix64(seed^splitmix64(uint64(id)+1)))),
		keychooser: w.keychooser,
	}
	if w.latest != nil {
		t.keychooser = w.latest.Clone()
	}
	return t
}

// splitmix64 is a bijective mixer (SplitMix64's finalizer with its increment).
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ID returns the worker id the thread was created with.
func (t *Thread) ID() int { return t.id }

// Rand returns the thread's random source, for other per-worker generators.
func (t *Thread) Rand() *rand.Rand { return t.rng }

// Workload returns the shared workload.
func (t *Thread) Workload() *Workload { return t.w }

// NextLoadKeynum returns the next key number of the load phase from the
// shared key sequence starting at insertstart, and false once insertcount
// numbers have been handed out (by all threads together).
func (t *Thread) NextLoadKeynum() (int64, bool) {
	k := t.w.loadSeq.Next(nil)
	if k-t.w.loadStart >= t.w.loadN {
		return 0, false
	}
	return k, true
}

// NextOp chooses the next transaction operation by the configured
// proportions.
func (t *Thread) NextOp() Op { return Op(t.w.ops.Next(t.rng)) }

// NextKeynum chooses the key number of a read, update, scan or
// read-modify-write, as CoreWorkload.nextKeynum: it draws again while the
// number is beyond the last acknowledged insert; for the exponential
// distribution the number is that last insert minus the draw.
func (t *Thread) NextKeynum() int64 {
	if e := t.w.exponential; e != nil {
		for {
			last := t.w.txnSeq.Last()
			d := e.NextFloat(t.rng)
			if d < float64(last)+1 { // else last - int(d) < 0: draw again
				return t.w.toGlobal(last - int64(d))
			}
		}
	}
	for {
		k := t.keychooser.Next(t.rng)
		if k <= t.w.txnSeq.Last() {
			return t.w.toGlobal(k)
		}
	}
}

// NextInsertKeynum returns the key number of the next transaction insert
// (the shared sequence starting at recordcount; a shard's i-th insert is
// recordcount + i·N + K). Call Workload.Acknowledge with it when the insert
// is done.
func (t *Thread) NextInsertKeynum() int64 { return t.w.toGlobal(t.w.txnSeq.Next(nil)) }

// AppendKey appends the key name of keynum (see the package function
// AppendKey) using the workload's insertorder and zeropadding.
func (t *Thread) AppendKey(dst []byte, keynum int64) []byte {
	return AppendKey(dst, keynum, t.w.cfg.OrderedInserts, t.w.cfg.ZeroPadding)
}

// ScanLength returns the number of records of the next scan.
func (t *Thread) ScanLength() int { return int(t.w.scanLength.Next(t.rng)) }

// FieldLength returns the length of the next field value.
func (t *Thread) FieldLength() int { return int(t.w.fieldLength.Next(t.rng)) }

// ReadField returns the index of the field to read when readallfields is
// false (YCSB's fieldchooser, uniform over fieldcount).
func (t *Thread) ReadField() int { return int(t.w.fieldChooser.Next(t.rng)) }

// UpdateField returns the index of the field to write when writeallfields is
// false (the same fieldchooser as ReadField).
func (t *Thread) UpdateField() int { return int(t.w.fieldChooser.Next(t.rng)) }
