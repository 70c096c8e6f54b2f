package workload

import (
	"errors"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Known lists properties owned by other docbench packages (e.g. "layout",
// or the prefix "server."). ParseConfig accepts them without validation; they
// stay in Config.Props.
type Known struct {
	Keys     []string
	Prefixes []string
}

// Request distributions (requestdistribution).
const (
	DistUniform     = "uniform"
	DistZipfian     = "zipfian"
	DistLatest      = "latest"
	DistHotspot     = "hotspot"
	DistExponential = "exponential"
	DistSequential  = "sequential"
)

// Field length distributions (fieldlengthdistribution) other than uniform
// and zipfian.
const (
	DistConstant  = "constant"
	DistHistogram = "histogram"
)

// Config is a validated YCSB core workload configuration. Field comments name
// the property and its default (YCSB 0.17's CoreWorkload and Client).
type Config struct {
	Table                   string     // table (usertable)
	FieldCount              int        // fieldcount (10)
	FieldLength             int        // fieldlength (100)
	MinFieldLength          int        // minfieldlength (1); used by uniform and zipfian field lengths
	FieldLengthDistribution string     // fieldlengthdistribution: constant (default), uniform, zipfian, histogram
	FieldLengthHistogram    string     // fieldlengthhistogram (hist.txt); read only for the histogram distribution
	Histogram               *Histogram // the parsed fieldlengthhistogram file, when FieldLengthDistribution is histogram
	FieldNamePrefix         string     // fieldnameprefix (field)
	ReadAllFields           bool       // readallfields (true)
	ReadAllFieldsByName     bool       // readallfieldsbyname (false; YCSB 0.18): name all fields instead of reading the whole record
	WriteAllFields          bool       // writeallfields (false)
	DataIntegrity           bool       // dataintegrity (false); needs constant field lengths
	FieldValues             string     // fieldvalues (random): random characters (YCSB's) or text, words of a vocabulary that compress

	ReadProportion            float64 // readproportion (0.95)
	UpdateProportion          float64 // updateproportion (0.05)
	InsertProportion          float64 // insertproportion (0)
	ScanProportion            float64 // scanproportion (0)
	ReadModifyWriteProportion float64 // readmodifywriteproportion (0)

	RequestDistribution   string  // requestdistribution: uniform (default), zipfian, latest, hotspot, exponential, sequential
	ZipfianConstant       float64 // fixed at YCSB's 0.99 (no property)
	HotspotDataFraction   float64 // hotspotdatafraction (0.2)
	HotspotOpnFraction    float64 // hotspotopnfraction (0.8)
	ExponentialPercentile float64 // exponential.percentile (95)
	ExponentialFrac       float64 // exponential.frac (0.8571428571)

	MinScanLength          int    // minscanlength (1)
	MaxScanLength          int    // maxscanlength (1000)
	ScanLengthDistribution string // scanlengthdistribution: uniform (default), zipfian

	OrderedInserts bool // insertorder: hashed (default, false) or ordered (true)
	ZeroPadding    int  // zeropadding (1)

	// RecordCount is recordcount as given (YCSB Client default 0). The
	// workload's key space uses EffectiveRecordCount, where 0 means
	// math.MaxInt32 as in CoreWorkload.
	RecordCount    int64
	InsertStart    int64 // insertstart (0)
	InsertCount    int64 // insertcount (EffectiveRecordCount - insertstart)
	InsertCountSet bool  // whether insertcount was given
	OperationCount int64 // operationcount (0: no limit, run until maxexecutiontime)

	MaxExecutionTime time.Duration // maxexecutiontime in seconds, fractions allowed (0: no limit)
	// MeasurementInterval is YCSB's measurement.interval (op, intended or
	// both): which latencies --format ycsb prints, as YCSB would.
	MeasurementInterval string
	ThreadCount         int     // threadcount (1)
	Target              float64 // target ops/s over all threads (0: unthrottled)
	BatchSize           int     // batchsize (1)
	Status              bool    // status (false): print status while running
	Label               string  // label (""): prefix of status lines

	InsertionRetryLimit       int           // core_workload_insertion_retry_limit (0)
	InsertionRetryInterval    time.Duration // core_workload_insertion_retry_interval in seconds (3)
	InsertionKeepGoingOnError bool          // core_workload_insertion_keep_going_on_error (false; YCSB 0.18)

	// Doc holds the document extensions (readfields, updatemode, queries, …).
	Doc DocOps

	// Shard is the slice of the workload this process runs (not a
	// property: --shard K/N, see ApplyShard); the zero value runs it all.
	Shard Shard

	// Props holds every property as given, including those of Known.
	Props map[string]string
	// defaults are the defaults the validator applied, by property.
	defaults map[string]string
	// Notes are remarks for the user, e.g. properties that only configure
	// YCSB itself.
	Notes []string
}

// EffectiveRecordCount is the record count the key choosers use: RecordCount,
// or math.MaxInt32 when it is 0 (CoreWorkload.init).
func (c *Config) EffectiveRecordCount() int64 {
	if c.RecordCount == 0 {
		return math.MaxInt32
	}
	return c.RecordCount
}

// ycsbOnly are YCSB properties that configure YCSB itself (its measurement,
// export, driver, JVM and tracing machinery) and have no effect in docbench.
var ycsbOnly = []string{
	"workload", "db", "exporter", "exportfile", "dotransactions", "jvm-args",
	"measurementtype", "measurement.trackjvm",
	"measurement.histogram.verbose", "measurement.raw.output_file",
	"measurement.raw.no_summary", "histogram.buckets", "hdrhistogram.percentiles",
	"hdrhistogram.fileoutput", "hdrhistogram.output.path", "timeseries.granularity",
	"status.interval", "reportlatencyforeacherror", "latencytrackederrors",
	"spin.sleep", "debug", "basicdb.verbose", "basicdb.simulatedelay",
	"basicdb.randomizedelay", "basicdb.count",
}

// ycsbOnlyPrefixes are prefixes of YCSB-only properties.
var ycsbOnlyPrefixes = []string{"htrace.", "hdrhistogram."}

// coreWorkloadClasses are the workload= values docbench implements.
var coreWorkloadClasses = map[string]bool{
	"site.ycsb.workloads.CoreWorkload":      true,
	"com.yahoo.ycsb.workloads.CoreWorkload": true,
}

// configParser reads typed values and collects every problem.
type configParser struct {
	p        *Properties
	errs     []error
	used     map[string]bool
	defaults map[string]string // for messages about unset properties
}

func (c *configParser) raw(key string) (string, bool) {
	c.used[key] = true
	v, ok := c.p.Get(key)
	return strings.TrimSpace(v), ok
}

// fail records a problem with key's value.
func (c *configParser) fail(key, format string, args ...any) {
	src := c.p.Source(key)
	v, ok := c.p.Get(key)
	if !ok {
		src, v = "default", c.defaults[key]
	}
	c.errs = append(c.errs, fmt.Errorf("%s: %s=%q: %s", src, key, v, fmt.Sprintf(format, args...)))
}

func (c *configParser) str(key, def string) string {
	c.defaults[key] = def
	if v, ok := c.raw(key); ok {
		return v
	}
	return def
}

func (c *configParser) int(key string, def, min, max int64) int64 {
	c.defaults[key] = strconv.FormatInt(def, 10)
	v, ok := c.raw(key)
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		c.fail(key, "not an integer")
		return def
	}
	if n < min {
		if min == 0 {
			c.fail(key, "must be zero or more")
		} else {
			c.fail(key, "must be at least %d", min)
		}
		return def
	}
	if n > max {
		c.fail(key, "must be at most %d", max)
		return def
	}
	return n
}

func (c *configParser) float(key string, def, min, max float64) float64 {
	c.defaults[key] = strconv.FormatFloat(def, 'g', -1, 64)
	v, ok := c.raw(key)
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		c.fail(key, "not a number")
		return def
	}
	if f < min || f > max {
		c.fail(key, "must be %s", rangeWords(min, max))
		return def
	}
	return f
}

// rangeWords says which values [min, max] allows in a user's words: no
// float64 limits, "more than 0" for the smallest positive number.
func rangeWords(min, max float64) string {
	var lower, upper string
	switch {
	case min == 0:
		lower = "zero or more"
	case min > 0 && min < 1e-300:
		lower = "more than 0"
	default:
		lower = fmt.Sprintf("at least %g", min)
	}
	switch {
	case max >= 1e9: // no limit a user can reach (292 years of seconds, float64)
		return lower
	case math.Nextafter(math.Ceil(max), 0) == max:
		upper = fmt.Sprintf("less than %g", math.Ceil(max))
	default:
		upper = fmt.Sprintf("at most %g", max)
	}
	if min == 0 {
		return fmt.Sprintf("between 0 and %g", max)
	}
	return lower + " and " + upper
}

func (c *configParser) bool(key string, def bool) bool {
	c.defaults[key] = strconv.FormatBool(def)
	v, ok := c.raw(key)
	if !ok {
		return def
	}
	switch strings.ToLower(v) {
	case "true":
		return true
	case "false":
		return false
	}
	c.fail(key, "want true or false")
	return def
}

func (c *configParser) enum(key, def, what string, allowed ...string) string {
	c.defaults[key] = def
	v, ok := c.raw(key)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	c.fail(key, "unknown %s (want %s)", what, strings.Join(allowed, ", "))
	return def
}

// ParseConfig validates p and returns the typed configuration, or every
// problem found joined with errors.Join, one line each naming the source,
// property and value. Properties listed in extra are accepted without
// validation; YCSB-only properties are accepted with a note; any other
// property is an error with the nearest known name as a suggestion.
func ParseConfig(p *Properties, extra Known) (*Config, error) {
	c := &configParser{p: p, used: map[string]bool{}, defaults: map[string]string{}}
	cfg := &Config{ZipfianConstant: ZipfianConstant}
	// In this order: problems are reported in the order they are found.
	c.fields(cfg)
	c.operations(cfg)
	c.distributions(cfg)
	c.counts(cfg)
	c.runSettings(cfg)
	c.keyRanges(cfg)
	c.otherKeys(cfg, extra)
	cfg.Props = p.Map()
	cfg.defaults = c.defaults
	if len(c.errs) > 0 {
		return nil, errors.Join(c.errs...)
	}
	return cfg, nil
}

const maxInt32 = math.MaxInt32

// fields reads the table and what its records hold: field count, lengths
// and names, and which fields operations read and write.
func (c *configParser) fields(cfg *Config) {
	cfg.Table = c.str("table", "usertable")
	if cfg.Table == "" {
		c.fail("table", "must not be empty")
	}
	cfg.FieldCount = int(c.int("fieldcount", 10, 1, maxInt32))
	cfg.FieldLength = int(c.int("fieldlength", 100, 0, maxInt32))
	cfg.MinFieldLength = int(c.int("minfieldlength", 1, 0, maxInt32))
	cfg.FieldLengthDistribution = c.enum("fieldlengthdistribution", DistConstant, "field length distribution",
		DistConstant, DistUniform, DistZipfian, DistHistogram)
	cfg.FieldLengthHistogram = c.str("fieldlengthhistogram", "hist.txt")
	switch cfg.FieldLengthDistribution {
	case DistUniform, DistZipfian:
		if cfg.MinFieldLength > cfg.FieldLength {
			c.fail("minfieldlength", "greater than fieldlength (%d)", cfg.FieldLength)
		}
	case DistHistogram:
		h, err := readHistogramFile(cfg.FieldLengthHistogram)
		if err != nil {
			c.fail("fieldlengthhistogram", "%v", err)
		}
		cfg.Histogram = h
	}
	cfg.FieldNamePrefix = c.str("fieldnameprefix", "field")
	cfg.ReadAllFields = c.bool("readallfields", true)
	cfg.ReadAllFieldsByName = c.bool("readallfieldsbyname", false)
	cfg.WriteAllFields = c.bool("writeallfields", false)
	cfg.FieldValues = c.enum("fieldvalues", "random", "field values", "random", "text")
	cfg.DataIntegrity = c.bool("dataintegrity", false)
	if cfg.DataIntegrity && cfg.FieldValues == "text" {
		c.fail("fieldvalues", "text: dataintegrity values are YCSB's deterministic ones; use one or the other")
	}
	if cfg.DataIntegrity && cfg.FieldLengthDistribution != DistConstant {
		c.fail("dataintegrity", "needs fieldlengthdistribution=constant (is %s), as in YCSB", cfg.FieldLengthDistribution)
	}
}

// operations reads the operation mix: YCSB's proportions and the document
// operations.
func (c *configParser) operations(cfg *Config) {
	cfg.ReadProportion = c.float("readproportion", 0.95, 0, 1)
	cfg.UpdateProportion = c.float("updateproportion", 0.05, 0, 1)
	cfg.InsertProportion = c.float("insertproportion", 0, 0, 1)
	cfg.ScanProportion = c.float("scanproportion", 0, 0, 1)
	cfg.ReadModifyWriteProportion = c.float("readmodifywriteproportion", 0, 0, 1)
	c.docOps(cfg)
	sum := cfg.ReadProportion + cfg.UpdateProportion + cfg.InsertProportion + cfg.ScanProportion + cfg.ReadModifyWriteProportion + cfg.Doc.QueryProp + cfg.Doc.StatementProp
	if _, mix := c.p.Get("querymix"); sum == 0 && !mix { // a mix that did not read has said why
		c.errs = append(c.errs, fmt.Errorf("%s: all operation proportions are 0 (readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion, queryproportion, statementproportion)", proportionSource(c.p)))
	} else if math.Abs(sum-1) > 1e-9 {
		cfg.Notes = append(cfg.Notes, fmt.Sprintf("operation proportions sum to %g, not 1; they are normalized, as YCSB does", sum))
	}
}

// distributions reads how keys and scan lengths are chosen, and the key
// format.
func (c *configParser) distributions(cfg *Config) {
	cfg.RequestDistribution = c.enum("requestdistribution", DistUniform, "distribution",
		DistUniform, DistZipfian, DistLatest, DistHotspot, DistExponential, DistSequential)
	cfg.HotspotDataFraction = c.float("hotspotdatafraction", 0.2, 0, 1)
	cfg.HotspotOpnFraction = c.float("hotspotopnfraction", 0.8, 0, 1)
	cfg.ExponentialPercentile = c.float("exponential.percentile", 95, math.SmallestNonzeroFloat64, math.Nextafter(100, 0))
	cfg.ExponentialFrac = c.float("exponential.frac", 0.8571428571, math.SmallestNonzeroFloat64, math.MaxFloat64)

	cfg.MinScanLength = int(c.int("minscanlength", 1, 1, maxInt32))
	cfg.MaxScanLength = int(c.int("maxscanlength", 1000, 1, maxInt32))
	if cfg.MinScanLength > cfg.MaxScanLength {
		c.fail("minscanlength", "greater than maxscanlength (%d)", cfg.MaxScanLength)
	}
	cfg.ScanLengthDistribution = c.enum("scanlengthdistribution", DistUniform, "scan length distribution", DistUniform, DistZipfian)

	cfg.OrderedInserts = c.enum("insertorder", "hashed", "insert order", "hashed", "ordered") == "ordered"
	cfg.ZeroPadding = int(c.int("zeropadding", 1, 0, 1000))
}

// counts reads how many records there are, which of them a load inserts,
// and how many operations a run makes.
func (c *configParser) counts(cfg *Config) {
	cfg.RecordCount = c.int("recordcount", 0, 0, math.MaxInt64)
	cfg.InsertStart = c.int("insertstart", 0, 0, math.MaxInt64)
	rc := cfg.EffectiveRecordCount()
	_, cfg.InsertCountSet = c.p.Get("insertcount")
	cfg.InsertCount = c.int("insertcount", max(rc-cfg.InsertStart, 0), 0, math.MaxInt64)
	if cfg.InsertStart > rc-cfg.InsertCount {
		if cfg.InsertCountSet {
			c.fail("insertcount", "insertstart (%d) + insertcount exceeds recordcount (%d)", cfg.InsertStart, rc)
		} else {
			c.fail("insertstart", "greater than recordcount (%d)", rc)
		}
	}
	cfg.OperationCount = c.int("operationcount", 0, 0, math.MaxInt64)
}

// runSettings reads how a phase runs: duration, threads, rate, batches,
// status, and YCSB's insertion retries.
func (c *configParser) runSettings(cfg *Config) {
	// YCSB takes whole seconds; docbench also takes fractions (--duration 500ms).
	cfg.MaxExecutionTime = time.Duration(c.float("maxexecutiontime", 0, 0, float64(math.MaxInt64/int64(time.Second))) * float64(time.Second))
	cfg.ThreadCount = int(c.int("threadcount", 1, 1, 1<<20))
	cfg.Target = c.float("target", 0, 0, math.MaxFloat64)
	cfg.BatchSize = int(c.int("batchsize", 1, 1, maxInt32))
	cfg.Status = c.bool("status", false)
	cfg.Label = c.str("label", "")
	cfg.MeasurementInterval = c.enum("measurement.interval", "op", "measurement interval", "op", "intended", "both")

	cfg.InsertionRetryLimit = int(c.int("core_workload_insertion_retry_limit", 0, 0, maxInt32))
	cfg.InsertionRetryInterval = time.Duration(c.int("core_workload_insertion_retry_interval", 3, 0, maxInt32)) * time.Second
	cfg.InsertionKeepGoingOnError = c.bool("core_workload_insertion_keep_going_on_error", false)
}

// keyRanges checks that the key choosers have non-empty ranges.
func (c *configParser) keyRanges(cfg *Config) {
	if cfg.InsertCount == 0 {
		switch cfg.RequestDistribution {
		case DistUniform, DistSequential, DistHotspot:
			c.fail("insertcount", "the %s request distribution needs at least one record", cfg.RequestDistribution)
		}
	}
	if cfg.RequestDistribution == DistHotspot && cfg.InsertCount > 0 {
		hot := NewHotspot(cfg.InsertStart, cfg.InsertStart+cfg.InsertCount-1, cfg.HotspotDataFraction, cfg.HotspotOpnFraction)
		if hot.hotInterval == 0 && cfg.HotspotOpnFraction > 0 {
			c.fail("hotspotdatafraction", "hot set of %d records is empty but hotspotopnfraction is %g", cfg.InsertCount, cfg.HotspotOpnFraction)
		}
		if hot.coldInterval == 0 && cfg.HotspotOpnFraction < 1 {
			c.fail("hotspotdatafraction", "cold set is empty but hotspotopnfraction is %g", cfg.HotspotOpnFraction)
		}
	}
}

// otherKeys judges every property not read so far: YCSB-only (a note),
// owned by another package (extra), or unknown (an error with the nearest
// known name).
func (c *configParser) otherKeys(cfg *Config, extra Known) {
	p := c.p
	knownKeys := map[string]bool{}
	for k := range c.used {
		knownKeys[k] = true
	}
	for _, k := range extra.Keys {
		knownKeys[k] = true
	}
	for _, k := range ycsbOnly {
		knownKeys[k] = true
	}
	for _, key := range p.Keys() {
		switch {
		case c.used[key]:
		case key == "workload":
			if v, _ := p.Get(key); !coreWorkloadClasses[strings.TrimSpace(v)] {
				c.fail(key, "docbench implements only YCSB's CoreWorkload (site.ycsb.workloads.CoreWorkload)")
			}
		case isYCSBOnly(key):
			cfg.Notes = append(cfg.Notes, fmt.Sprintf("property %q has no effect in docbench (it configures YCSB itself)", key))
		case knownKeys[key] || hasAnyPrefix(key, extra.Prefixes):
		default:
			msg := fmt.Sprintf("%s: unknown property %q", p.Source(key), key)
			if s := nearest(key, knownKeys); s != "" {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			c.errs = append(c.errs, errors.New(msg))
		}
	}
}

func isYCSBOnly(key string) bool {
	for _, k := range ycsbOnly {
		if k == key {
			return true
		}
	}
	return hasAnyPrefix(key, ycsbOnlyPrefixes)
}

func hasAnyPrefix(key string, prefixes []string) bool {
	for _, p := range prefixes {
		if p != "" && strings.HasPrefix(key, p) {
			return true
		}
	}
	return false
}

// proportionSource names where the operation proportions came from.
func proportionSource(p *Properties) string {
	var srcs []string
	seen := map[string]bool{}
	for _, k := range []string{"readproportion", "updateproportion", "insertproportion", "scanproportion", "readmodifywriteproportion"} {
		if s := p.Source(k); s != "" && !seen[s] {
			seen[s] = true
			srcs = append(srcs, s)
		}
	}
	if len(srcs) == 0 {
		return "default"
	}
	return strings.Join(srcs, ", ")
}

func readHistogramFile(path string) (*Histogram, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read histogram file: %w", err)
	}
	defer f.Close()
	return ReadHistogram(f, path)
}

// nearest returns the candidate closest to key by Levenshtein distance, if it
// is close enough to be a plausible typo.
func nearest(key string, candidates map[string]bool) string {
	names := make([]string, 0, len(candidates))
	for k := range candidates {
		names = append(names, k)
	}
	sort.Strings(names)
	best, bestD := "", math.MaxInt
	for _, n := range names {
		if d := levenshtein(key, n); d < bestD {
			best, bestD = n, d
		}
	}
	if bestD > max(2, len(key)/3) {
		return ""
	}
	return best
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
