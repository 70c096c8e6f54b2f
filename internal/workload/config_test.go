package workload

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/docbench/docbench/workloads"
)

func props(t *testing.T, kv ...string) *Properties {
	t.Helper()
	p := NewProperties()
	for _, s := range kv {
		if err := p.ParseOverride(s); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestDocOps(t *testing.T) {
	p := NewProperties()
	for _, kv := range []string{"readfields=10%", "updatepath=address.zip", "queryproportion=0.1", "querykind=range",
		"query.path=review_date", "query.limit=20", "query.fields=a.b, c", "secondaryindex=review_date, product_group", "readproportion=0.9", "updateproportion=0"} {
		if err := p.ParseOverride(kv); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := ParseConfig(p, Known{})
	if err != nil {
		t.Fatal(err)
	}
	d := cfg.Doc
	if d.ReadFieldsPct != 10 || d.UpdateMode != UpdatePartial || d.QueryKind != "range" || d.QueryLimit != 20 ||
		!reflect.DeepEqual(d.QueryFields, []string{"a.b", "c"}) ||
		!reflect.DeepEqual(d.SecondaryIndex, []string{"review_date", "product_group"}) {
		t.Fatalf("%+v", d)
	}
	for kv, want := range map[string]string{
		"readfields=0":        "readfields",
		"readfields=150%":     "readfields",
		"updatemode=upsert":   "update mode",
		"queryproportion=0.5": "query.path",
		"querykind=join":      "query kind",
		"query.form=document": "query.form",
		"query.form=whole":    "query form",
		"query.value=@last":   `query.value="@last": names an array's last element: querykind=array only (querykind is field)`,
	} {
		p := NewProperties()
		p.ParseOverride(kv)
		if _, err := ParseConfig(p, Known{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err %v, want one naming %s", kv, err, want)
		}
	}
}

func TestConfigDefaults(t *testing.T) {
	cfg, err := ParseConfig(NewProperties(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Table: "usertable", FieldCount: 10, FieldLength: 100, MinFieldLength: 1,
		FieldLengthDistribution: "constant", FieldLengthHistogram: "hist.txt", FieldNamePrefix: "field", FieldValues: "random",
		ReadAllFields: true, ReadProportion: 0.95, UpdateProportion: 0.05,
		RequestDistribution: "uniform", ZipfianConstant: 0.99, HotspotDataFraction: 0.2, HotspotOpnFraction: 0.8,
		ExponentialPercentile: 95, ExponentialFrac: 0.8571428571,
		MinScanLength: 1, MaxScanLength: 1000, ScanLengthDistribution: "uniform", ZeroPadding: 1,
		InsertCount: 2147483647, ThreadCount: 1, BatchSize: 1, MeasurementInterval: "op", InsertionRetryInterval: 3 * time.Second,
		Doc: DocOps{UpdateMode: "merge", QueryKind: "field", QueryForm: "path", QueryFunc: "avg"},
	}
	cfg.Props, cfg.Notes, cfg.defaults = nil, nil, nil // defaults: TestHelpCoversEveryProperty
	if !reflect.DeepEqual(*cfg, want) {
		t.Errorf("defaults:\n got %+v\nwant %+v", *cfg, want)
	}
	if cfg.EffectiveRecordCount() != 2147483647 {
		t.Error("recordcount 0 should mean MaxInt32")
	}
}

func TestConfigBuiltins(t *testing.T) {
	for _, name := range workloads.Names() {
		p := NewProperties()
		if err := p.LoadFile(name); err != nil {
			t.Fatal(err)
		}
		cfg, err := ParseConfig(p, Known{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if cfg.RecordCount != 1000 || cfg.OperationCount != 1000 || cfg.InsertCount != 1000 || len(cfg.Notes) != 0 {
			t.Errorf("%s: %+v", name, cfg)
		}
	}
}

func TestConfigValues(t *testing.T) {
	p := props(t, "recordcount=5000", "insertstart=1000", "insertcount=2000", "operationcount=10",
		"maxexecutiontime=90", "threadcount=8", "target=250.5", "insertorder=ordered", "zeropadding=12",
		"requestdistribution=hotspot", "readallfields=FALSE", "fieldlengthdistribution=uniform", "minfieldlength=10",
		"readproportion=0.5", "updateproportion=0.5", "layout=jsonb", "server.port=5432")
	cfg, err := ParseConfig(p, Known{Keys: []string{"layout"}, Prefixes: []string{"server."}})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.RecordCount != 5000 || cfg.InsertStart != 1000 || cfg.InsertCount != 2000 || !cfg.InsertCountSet ||
		cfg.MaxExecutionTime != 90*time.Second || cfg.ThreadCount != 8 || cfg.Target != 250.5 ||
		!cfg.OrderedInserts || cfg.ZeroPadding != 12 || cfg.ReadAllFields || cfg.MinFieldLength != 10 {
		t.Errorf("%+v", cfg)
	}
	if cfg.Props["layout"] != "jsonb" || cfg.Props["server.port"] != "5432" {
		t.Errorf("Props %v", cfg.Props)
	}
	// insertcount defaults to recordcount - insertstart.
	cfg, err = ParseConfig(props(t, "recordcount=100", "insertstart=40"), Known{})
	if err != nil || cfg.InsertCount != 60 || cfg.InsertCountSet {
		t.Errorf("%v %+v", err, cfg)
	}
}

func TestConfigAllErrorsAtOnce(t *testing.T) {
	p := NewProperties()
	if err := p.Load(strings.NewReader("recordcount=-5\nrequestdistribution=zipfan\nreadproportion=1.5\n"), "workloads/x"); err != nil {
		t.Fatal(err)
	}
	for _, kv := range []string{"fieldcount=ten", "recrodcount=10", "minscanlength=50", "maxscanlength=10",
		"readallfields=yes", "fieldlengthdistribution=uniform", "minfieldlength=200", "scanlengthdistribution=latest",
		"insertorder=random", "threadcount=0", "target=-1", "exponential.percentile=100", "dataintegrity=true",
		"workload=site.ycsb.workloads.TimeSeriesWorkload", "hotspotopnfraction=2"} {
		if err := p.ParseOverride(kv); err != nil {
			t.Fatal(err)
		}
	}
	_, err := ParseConfig(p, Known{})
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	want := []string{
		`-p: fieldcount="ten": not an integer`,
		`-p: minfieldlength="200": greater than fieldlength (100)`,
		`-p: readallfields="yes": want true or false`,
		`-p: dataintegrity="true": needs fieldlengthdistribution=constant (is uniform), as in YCSB`,
		`workloads/x:3: readproportion="1.5": must be between 0 and 1`,
		`workloads/x:2: requestdistribution="zipfan": unknown distribution (want uniform, zipfian, latest, hotspot, exponential, sequential)`,
		`-p: hotspotopnfraction="2": must be between 0 and 1`,
		`-p: exponential.percentile="100": must be more than 0 and less than 100`,
		`-p: minscanlength="50": greater than maxscanlength (10)`,
		`-p: scanlengthdistribution="latest": unknown scan length distribution (want uniform, zipfian)`,
		`-p: insertorder="random": unknown insert order (want hashed, ordered)`,
		`workloads/x:1: recordcount="-5": must be zero or more`,
		`-p: threadcount="0": must be at least 1`,
		`-p: target="-1": must be zero or more`,
		`-p: unknown property "recrodcount" (did you mean "recordcount"?)`,
		`-p: workload="site.ycsb.workloads.TimeSeriesWorkload": docbench implements only YCSB's CoreWorkload`,
	}
	for _, w := range want {
		if !slices.ContainsFunc(lines, func(l string) bool { return strings.HasPrefix(l, w) }) {
			t.Errorf("missing error %q", w)
		}
	}
	if len(lines) != len(want) {
		t.Errorf("got %d errors, want %d:\n%s", len(lines), len(want), err)
	}
}

func TestConfigRanges(t *testing.T) {
	for _, tc := range []struct {
		kv   []string
		want string
	}{
		{[]string{"readproportion=0", "updateproportion=0"}, "-p: all operation proportions are 0"},
		{[]string{"recordcount=100", "insertstart=50", "insertcount=60"}, `-p: insertcount="60": insertstart (50) + insertcount exceeds recordcount (100)`},
		{[]string{"recordcount=100", "insertstart=150"}, `-p: insertstart="150": greater than recordcount (100)`},
		{[]string{"recordcount=3", "requestdistribution=hotspot", "hotspotdatafraction=0.1"}, `hotspotdatafraction="0.1": hot set of 3 records is empty`},
		{[]string{"recordcount=3", "requestdistribution=hotspot", "hotspotdatafraction=1"}, `hotspotdatafraction="1": cold set is empty`},
		{[]string{"insertcount=0", "requestdistribution=uniform"}, `-p: insertcount="0": the uniform request distribution needs at least one record`},
		{[]string{"fieldlengthdistribution=histogram", "fieldlengthhistogram=/nonexistent/h.txt"}, `-p: fieldlengthhistogram="/nonexistent/h.txt": cannot read histogram file`},
		{[]string{"fieldlengthdistribution=histogram"}, `default: fieldlengthhistogram="hist.txt": cannot read histogram file`},
		{[]string{"zzzzzz=1"}, `-p: unknown property "zzzzzz"`},
	} {
		_, err := ParseConfig(props(t, tc.kv...), Known{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.kv, err, tc.want)
		}
	}
	_, err := ParseConfig(props(t, "zzzzzz=1"), Known{})
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("suggestion for a far name: %v", err)
	}
	// Known keys are offered as suggestions too.
	_, err = ParseConfig(props(t, "layuot=x"), Known{Keys: []string{"layout"}})
	if err == nil || !strings.Contains(err.Error(), `did you mean "layout"?`) {
		t.Errorf("error %v", err)
	}
}

func TestConfigNotes(t *testing.T) {
	cfg, err := ParseConfig(props(t, "db=site.ycsb.BasicDB", "measurementtype=hdrhistogram", "hdrhistogram.fileoutput=true",
		"workload=site.ycsb.workloads.CoreWorkload", "readproportion=0.5", "updateproportion=0.25"), Known{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"operation proportions sum to 0.75, not 1; they are normalized, as YCSB does",
		`property "db" has no effect in docbench (it configures YCSB itself)`,
		`property "hdrhistogram.fileoutput" has no effect in docbench (it configures YCSB itself)`,
		`property "measurementtype" has no effect in docbench (it configures YCSB itself)`,
	}
	if !slices.Equal(cfg.Notes, want) {
		t.Errorf("Notes:\n%s", strings.Join(cfg.Notes, "\n"))
	}
}

func TestConfigHistogram(t *testing.T) {
	path := filepath.Join(t.TempDir(), "hist.txt")
	if err := os.WriteFile(path, []byte("BlockSize\t4\n0\t1\n1\t1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig(props(t, "fieldlengthdistribution=histogram", "fieldlengthhistogram="+path), Known{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Histogram == nil || cfg.Histogram.BlockSize != 4 {
		t.Errorf("%+v", cfg.Histogram)
	}
	if err := os.WriteFile(path, []byte("BlockSize\t4\n0\tx\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = ParseConfig(props(t, "fieldlengthdistribution=histogram", "fieldlengthhistogram="+path), Known{})
	if err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Errorf("error %v should name the histogram file line", err)
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kitten", "sitting", 3}, {"recrodcount", "recordcount", 2}} {
		if got := levenshtein(tc.a, tc.b); got != tc.d {
			t.Errorf("levenshtein(%q,%q) = %d", tc.a, tc.b, got)
		}
	}
}

// TestRangeWords: range errors speak a user's words, never float64 limits.
func TestRangeWords(t *testing.T) {
	for _, tc := range []struct {
		min, max float64
		want     string
	}{
		{0, math.MaxFloat64, "zero or more"},
		{0, float64(math.MaxInt64 / int64(time.Second)), "zero or more"},
		{0, 1, "between 0 and 1"},
		{math.SmallestNonzeroFloat64, math.MaxFloat64, "more than 0"},
		{math.SmallestNonzeroFloat64, math.Nextafter(100, 0), "more than 0 and less than 100"},
		{1, 10, "at least 1 and at most 10"},
	} {
		if got := rangeWords(tc.min, tc.max); got != tc.want {
			t.Errorf("rangeWords(%g, %g) = %q, want %q", tc.min, tc.max, got, tc.want)
		}
	}
}

// TestHelpCoversEveryProperty: `docbench help properties` is generated from
// the validator: every property it reads has a meaning, and no meaning
// names a property it does not read.
func TestHelpCoversEveryProperty(t *testing.T) {
	cfg, err := ParseConfig(NewProperties(), Known{})
	if err != nil {
		t.Fatal(err)
	}
	for k := range cfg.defaults {
		if meanings[k] == "" {
			t.Errorf("property %s has no meaning in help.go", k)
		}
	}
	for k := range meanings {
		if _, ok := cfg.defaults[k]; !ok && k != "readfields" {
			t.Errorf("help.go describes %s, which the validator does not read", k)
		}
	}
	if len(Help()) != len(meanings) {
		t.Errorf("Help() lists %d, want %d", len(Help()), len(meanings))
	}
}
