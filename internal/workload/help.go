package workload

import "sort"

// PropertyHelp describes one workload property for `docbench help
// properties`: its name, the default the validator applies, and its meaning.
type PropertyHelp struct {
	Name, Default, Meaning string
}

// meanings say what each property the validator reads does; a test keeps
// them and the validator's properties the same set.
var meanings = map[string]string{
	"table":                                  "table (collection) the records live in",
	"fieldcount":                             "fields per flat record (YCSB)",
	"fieldlength":                            "length of a field's value, or its maximum with a distribution (YCSB)",
	"minfieldlength":                         "shortest field value with a uniform or zipfian field length distribution",
	"fieldlengthdistribution":                "constant, uniform, zipfian or histogram (YCSB)",
	"fieldlengthhistogram":                   "file of the field length histogram (YCSB's format)",
	"fieldvalues":                            "docbench: random (characters, YCSB's) or text (words of a vocabulary, which compress as real text does)",
	"fieldnameprefix":                        "prefix of field names: field0, field1, … (YCSB)",
	"readallfields":                          "reads return every field (true) or one (false) (YCSB)",
	"readallfieldsbyname":                    "read all fields by naming them rather than all columns (YCSB)",
	"writeallfields":                         "updates write every field (true) or one (false) (YCSB)",
	"readproportion":                         "share of reads among operations (YCSB)",
	"updateproportion":                       "share of updates (YCSB)",
	"insertproportion":                       "share of inserts (YCSB)",
	"scanproportion":                         "share of scans (YCSB)",
	"readmodifywriteproportion":              "share of read-modify-writes (YCSB)",
	"requestdistribution":                    "key choice: uniform, zipfian (scrambled), latest, hotspot, exponential, sequential (YCSB)",
	"hotspotdatafraction":                    "hotspot: share of the keys that are hot (YCSB)",
	"hotspotopnfraction":                     "hotspot: share of operations on hot keys (YCSB)",
	"exponential.percentile":                 "exponential: percentage of operations within exponential.frac of the keys (YCSB)",
	"exponential.frac":                       "exponential: fraction of the keys (YCSB)",
	"minscanlength":                          "shortest scan (YCSB)",
	"maxscanlength":                          "longest scan (YCSB)",
	"scanlengthdistribution":                 "uniform or zipfian scan lengths (YCSB)",
	"insertorder":                            "hashed (FNV of the key number, YCSB's default) or ordered key names",
	"zeropadding":                            "digits key numbers are padded to in key names (YCSB)",
	"recordcount":                            "records in the key space (YCSB)",
	"insertstart":                            "first key number this load inserts (YCSB)",
	"insertcount":                            "records this load inserts (YCSB; default recordcount − insertstart)",
	"operationcount":                         "operations of a run; 0 = no limit, the duration ends it (YCSB)",
	"maxexecutiontime":                       "seconds a phase may last; 0 = no limit (YCSB; --duration)",
	"threadcount":                            "client threads (YCSB; --threads)",
	"target":                                 "operations per second over all threads, an open loop; 0 = as fast as possible (YCSB; --rate)",
	"batchsize":                              "records per insert statement in a load: COPY, multi-row INSERT, insertMany (YCSB)",
	"dataintegrity":                          "values a pure function of key and field, checked on every read (YCSB)",
	"core_workload_insertion_retry_limit":    "retries of a failed insert (YCSB)",
	"core_workload_insertion_retry_interval": "seconds between insert retries (YCSB)",
	"core_workload_insertion_keep_going_on_error": "a load goes on after an insert fails (YCSB)",
	"status":               "accepted for YCSB's -s; docbench prints a status line by default (--status)",
	"label":                "a label recorded in the result",
	"measurement.interval": "which latencies --format ycsb prints, as YCSB does: op (service time), intended (from each intended start, under the plain names) or both (adds [Intended-OP] blocks) (YCSB)",
	"readfields":           "docbench: N top-level fields per read, or a share such as 10%",
	"readpath":             "docbench: the (nested) path a read projects, e.g. address.city; @deepest for the deepest leaf",
	"updatepath":           "docbench: the (nested) path an update writes",
	"updatemode":           "docbench: merge (set top-level fields), partial (set a path in place) or replace (the whole document)",
	"updatefields":         "docbench: top-level fields an update writes",
	"queryproportion":      "docbench: share of secondary queries (QUERY-…)",
	"querykind":            "docbench: field, contains, array, range, aggregate or descendant (a key at any depth)",
	"query.path":           "docbench: the path a query filters on",
	"query.value":          "docbench: the one value queries look for (JSON, or text as a string), e.g. a rare term; @first or @last: the first or last elements of the arrays (querykind=array); default: values found in the documents",
	"query.form":           "docbench: contains queries as path @> value (path) or the whole document @> a fragment built from the path (document), as Oleg Bartunov and Ivan Panchenko's talk \"NoSQL Postgres\" (PGDay Saint Petersburg 2017) writes it",
	"query.limit":          "docbench: documents a query returns at most, 0: every match (querykind=range: 10 unless given; with querymix: of the entries without limit:)",
	"query.offset":         "docbench: documents a query skips",
	"query.fields":         "docbench: the paths a query returns, comma-separated (a projection, as a query mix's fields); default: the whole document",
	"query.aggpath":        "docbench: the path an aggregate query computes over",
	"query.func":           "docbench: avg, sum or count",
	"querymix":             "docbench: a YAML file naming a service's queries and updates of one path, each with its proportion, each reported as QUERY-NAME or UPDATE-NAME (docs/documents.md)",
	"statementproportion":  "docbench: share of the user's own statements (statement.sql or statement.file)",
	"statement.sql":        "docbench: a statement of the user's, prepared once per session",
	"statement.file":       "docbench: files of statements, FILE[@WEIGHT] comma-separated (pgbench's -f): each one transaction, drawn by weight, reported as STATEMENT-FILE",
	"statement.name":       "docbench: the operation name its latency is reported under",
	"statement.params":     "docbench: its parameters: key, number ranges or values drawn from documents",
	"statement.setup":      "docbench: statements run once after the load (indexes, …)",
	"secondaryindex":       "docbench: comma-separated paths to index for queries",
}

// Help lists every property the validator reads, with its default and
// meaning, sorted by name.
func Help() []PropertyHelp {
	cfg, err := ParseConfig(NewProperties(), Known{})
	defaults := map[string]string{}
	if err == nil {
		defaults = cfg.defaults
	}
	out := make([]PropertyHelp, 0, len(meanings))
	for name, m := range meanings {
		out = append(out, PropertyHelp{Name: name, Default: defaults[name], Meaning: m})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Nearest returns the candidate closest to key when it is close enough to
// be a plausible typo, else "": the "did you mean" of property and study
// file errors.
func Nearest(key string, candidates []string) string {
	m := make(map[string]bool, len(candidates))
	for _, c := range candidates {
		m[c] = true
	}
	return nearest(key, m)
}
