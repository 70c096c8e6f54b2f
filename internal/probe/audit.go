package probe

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Durability classes: what a commit acknowledged to docbench survives.
const (
	// DurableAtCommit: flushed to stable storage before the commit returns.
	DurableAtCommit = "durable-at-commit"
	// GroupCommit: written to the operating system at commit and synced
	// periodically (or at checkpoints): survives a server crash, not a power
	// loss.
	GroupCommit = "group-commit"
	// Async: acknowledged before it leaves the server's memory: a server
	// crash can lose recent commits.
	Async = "async"
	// NoFsync: the server never syncs; a power loss can corrupt data.
	NoFsync = "no-fsync"
	// Unknown: the settings do not say.
	Unknown = "unknown"
)

// Key index classes: how a document is found by its key.
const (
	KeyPrimaryBtree    = "primary-btree"    // a primary key (b-tree, clustered or not)
	KeyIDIndex         = "_id"              // MongoDB's _id index
	KeyExpressionBtree = "expression-btree" // a b-tree on an expression over the document
	KeyGeneratedColumn = "generated-column" // a unique/primary index on a generated column
	KeyGINDocument     = "gin-whole-document"
	KeyNone            = "none"
)

// Audit is one target's classification for the fairness audit ("audit" in
// the result JSON). It is derived from the recorded settings and layout
// only, so old results can be audited too.
type Audit struct {
	Durability       string `json:"durability"`
	DurabilityDetail string `json:"durability_detail"`
	KeyIndex         string `json:"key_index"`
	KeyIndexDetail   string `json:"key_index_detail"`
	SecondaryIndexes string `json:"secondary_indexes"`
	Compression      string `json:"compression"`
	Memory           string `json:"memory"`
	Clients          int    `json:"clients"`
	// Reference is set when the server is not a performance reference
	// (the MongoDB wire-protocol peer).
	Reference string `json:"not_a_reference,omitempty"`
}

// Classify derives a target's audit classification.
func Classify(backend string, settings, layout map[string]string, clients int) Audit {
	a := Audit{Clients: clients, SecondaryIndexes: "none", Compression: "none", Memory: "unknown",
		Durability: Unknown, KeyIndex: KeyNone}
	get := func(m map[string]string, k string) string { return strings.ToLower(strings.TrimSpace(m[k])) }
	switch backend {
	case "postgres":
		fsync, sc := get(settings, "fsync"), get(settings, "synchronous_commit")
		switch {
		case fsync == "off":
			a.Durability, a.DurabilityDetail = NoFsync, "fsync=off, synchronous_commit="+sc
		case sc == "off":
			a.Durability, a.DurabilityDetail = Async, "synchronous_commit=off"
		case sc != "" && fsync != "":
			a.Durability, a.DurabilityDetail = DurableAtCommit, "synchronous_commit="+sc+", fsync=on"
		}
		if fpw := get(settings, "full_page_writes"); fpw != "" {
			a.DurabilityDetail += ", full_page_writes=" + fpw
		}
		key := layout["key"]
		a.KeyIndexDetail = key
		switch {
		case strings.Contains(key, "PRIMARY KEY"):
			a.KeyIndex = KeyPrimaryBtree
		case strings.HasPrefix(key, "GIN"):
			a.KeyIndex = KeyGINDocument
		case strings.HasPrefix(key, "btree on"):
			a.KeyIndex = KeyExpressionBtree
		}
		if kl := layout["keylookup"]; kl != "" {
			a.KeyIndexDetail += ", lookup " + kl
		}
		if v := layout["secondary_indexes"]; v != "" {
			a.SecondaryIndexes = v
		}
		a.Compression = "TOAST " + firstNonEmpty(layout["compression"], settings["default_toast_compression"], "pglz") + " (documents over ~2 kB)"
		if layout["storage"] == "external" {
			a.Compression = "none (STORAGE EXTERNAL)"
		}
		if v := settings["shared_buffers"]; v != "" {
			a.Memory = "shared_buffers=" + v
		}
	case "mysql":
		flush, sb, bin := get(settings, "innodb_flush_log_at_trx_commit"), get(settings, "sync_binlog"), get(settings, "log_bin")
		switch flush {
		case "1":
			a.Durability, a.DurabilityDetail = DurableAtCommit, "innodb_flush_log_at_trx_commit=1"
			if bin == "on" && sb != "1" {
				a.DurabilityDetail += ", binary log not synced at commit (sync_binlog=" + sb + ")"
			}
		case "2":
			a.Durability, a.DurabilityDetail = GroupCommit, "innodb_flush_log_at_trx_commit=2 (written at commit, synced about once a second)"
		case "0":
			a.Durability, a.DurabilityDetail = Async, "innodb_flush_log_at_trx_commit=0"
		}
		if get(settings, "innodb_flush_method") == "nosync" {
			a.Durability, a.DurabilityDetail = NoFsync, "innodb_flush_method=nosync"
		}
		key := layout["key"]
		a.KeyIndexDetail = key
		switch {
		case strings.Contains(key, "generated"):
			a.KeyIndex = KeyGeneratedColumn
		case strings.Contains(key, "PRIMARY KEY"):
			a.KeyIndex = KeyPrimaryBtree
		}
		var idx []string
		for k, v := range layout {
			if strings.HasPrefix(k, "index ") {
				idx = append(idx, strings.TrimPrefix(k, "index ")+": "+v)
			}
		}
		if len(idx) > 0 {
			sort.Strings(idx)
			a.SecondaryIndexes = strings.Join(idx, "; ")
		}
		a.Compression = "none (InnoDB row format default)"
		if v := settings["innodb_buffer_pool_size"]; v != "" {
			a.Memory = "innodb_buffer_pool_size=" + humanBytes(v)
		}
	case "mongodb":
		w, j := get(settings, "w"), get(settings, "journal")
		switch {
		case j == "true":
			a.Durability, a.DurabilityDetail = DurableAtCommit, "write concern j=true, w="+w
		case j == "false" || w == "0":
			a.Durability, a.DurabilityDetail = Async, "write concern w="+w+" without j: journaled at the commit interval"
		default:
			a.Durability, a.DurabilityDetail = Async, "write concern w="+w+", journal="+j+" (server default: journaled at the commit interval)"
		}
		a.KeyIndex, a.KeyIndexDetail = KeyIDIndex, layout["key"]
		if v := layout["indexes"]; v != "" {
			a.SecondaryIndexes = v
		}
		a.Compression = "WiredTiger block compression (server default snappy)"
		if v := settings["wiredTigerCacheSizeBytes"]; v != "" {
			a.Memory = "WiredTiger cache=" + humanBytes(v)
		}
		if settings["server"] != "" && strings.Contains(settings["server"], "peer") {
			a.Reference = settings["server"]
			a.Compression = "none (protocol peer)"
		}
	case "sqlite":
		sync, jm := get(settings, "synchronous"), get(settings, "journal_mode")
		switch {
		case sync == "off":
			a.Durability, a.DurabilityDetail = NoFsync, "synchronous=off"
		case sync == "full" || sync == "extra":
			a.Durability, a.DurabilityDetail = DurableAtCommit, "synchronous="+sync+", journal_mode="+jm
		case sync == "normal" && jm == "wal":
			a.Durability, a.DurabilityDetail = GroupCommit, "synchronous=normal in WAL mode: synced at checkpoints"
		case sync == "normal":
			a.Durability, a.DurabilityDetail = DurableAtCommit, "synchronous=normal, journal_mode="+jm
		}
		a.KeyIndex, a.KeyIndexDetail = KeyPrimaryBtree, layout["key"]
		if v := layout["secondary_indexes"]; v != "" {
			a.SecondaryIndexes = v
		}
		if v := settings["cache_size"]; v != "" {
			a.Memory = "cache_size=" + v
		}
	}
	if a.DurabilityDetail == "" {
		a.DurabilityDetail = "settings not recorded"
	}
	return a
}

func firstNonEmpty(xs ...string) string {
	for _, x := range xs {
		if x != "" {
			return x
		}
	}
	return ""
}

// humanBytes renders a byte count given as text; other text is kept.
func humanBytes(v string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	return FormatBytes(n)
}

// Target is one side of a comparison: a name and its audit.
type Target struct {
	Name    string
	Backend string
	Audit   Audit
}

// Finding is one line of the fairness audit.
type Finding struct {
	Aspect string
	Equal  bool
	// Meaning is set when the difference changes what the comparison means.
	Meaning string
	Values  []string // one per target
	// Strict marks differences --strict refuses (durability, key index).
	Strict bool
}

// Compare audits targets against each other.
func Compare(ts []Target) []Finding {
	aspect := func(name string, strict bool, val func(Audit) string, meaning func() string) Finding {
		f := Finding{Aspect: name, Equal: true, Strict: false}
		for i, t := range ts {
			v := val(t.Audit)
			f.Values = append(f.Values, v)
			if i > 0 && v != f.Values[0] {
				f.Equal = false
			}
		}
		if !f.Equal {
			f.Strict = strict
			if meaning != nil {
				f.Meaning = meaning()
			}
		}
		return f
	}
	var out []Finding
	out = append(out, aspect("durability", true, func(a Audit) string { return a.Durability }, func() string {
		var parts []string
		for _, t := range ts {
			parts = append(parts, t.Name+": "+t.Audit.Durability+" ("+t.Audit.DurabilityDetail+")")
		}
		return "commits are not equally safe, so throughput is not comparable: " + strings.Join(parts, "; ")
	}))
	out = append(out, aspect("key index", true, func(a Audit) string { return a.KeyIndex }, func() string {
		var parts []string
		unfair := false
		for _, t := range ts {
			parts = append(parts, t.Name+": "+describeKey(t.Audit))
			unfair = unfair || t.Audit.KeyIndex == KeyGINDocument || t.Audit.KeyIndex == KeyNone
		}
		msg := "documents are found by key through different indexes: " + strings.Join(parts, "; ")
		if unfair {
			msg += " — the seeds' unfair setup: a whole-document or missing index against a key index"
		}
		return msg
	}))
	out = append(out, aspect("secondary indexes", false, func(a Audit) string { return a.SecondaryIndexes }, nil))
	out = append(out, aspect("compression", false, func(a Audit) string { return a.Compression }, nil))
	out = append(out, aspect("memory", false, func(a Audit) string { return a.Memory }, nil))
	out = append(out, aspect("clients", false, func(a Audit) string { return strconv.Itoa(a.Clients) }, func() string {
		return "different client counts: throughput and latency are measured under different concurrency"
	}))
	var peers []string
	for _, t := range ts {
		if t.Audit.Reference != "" {
			peers = append(peers, t.Name+": "+t.Audit.Reference)
		}
	}
	if len(peers) > 0 {
		out = append(out, Finding{Aspect: "reference", Values: peers,
			Meaning: "a protocol peer, not a real server: its figures say nothing about the database's performance"})
	}
	return out
}

func describeKey(a Audit) string {
	switch a.KeyIndex {
	case KeyGINDocument:
		return "GIN over whole document for key lookup"
	case KeyIDIndex:
		return "_id index"
	case KeyNone:
		return "no key index (sequential scan)"
	}
	if a.KeyIndexDetail != "" {
		return a.KeyIndex + " (" + a.KeyIndexDetail + ")"
	}
	return a.KeyIndex
}

// StrictFailures returns the differences --strict refuses.
func StrictFailures(fs []Finding) []string {
	var out []string
	for _, f := range fs {
		if f.Strict && !f.Equal {
			out = append(out, fmt.Sprintf("%s differs (%s)", f.Aspect, strings.Join(f.Values, " vs ")))
		}
	}
	return out
}

// Lines renders an audit for a reader: what is equal, what differs (each
// target's value under names[i]), and which differences change the meaning
// of the comparison (marked ⚑).
func Lines(fs []Finding, names []string) []string {
	var out, equal []string
	for _, f := range fs {
		if f.Equal && len(f.Values) > 0 && f.Aspect != "reference" {
			equal = append(equal, fmt.Sprintf("%s (%s)", f.Aspect, f.Values[0]))
		}
	}
	if len(equal) > 0 {
		out = append(out, "equal: "+strings.Join(equal, "; "))
	}
	for _, f := range fs {
		if f.Equal {
			continue
		}
		if f.Aspect != "reference" {
			var vals []string
			for i, v := range f.Values {
				if i < len(names) {
					v = names[i] + " " + v
				}
				vals = append(vals, v)
			}
			out = append(out, fmt.Sprintf("differs: %s — %s", f.Aspect, strings.Join(vals, "; ")))
		}
		if f.Meaning != "" {
			out = append(out, "⚑ changes the meaning: "+f.Meaning)
		}
	}
	return out
}
