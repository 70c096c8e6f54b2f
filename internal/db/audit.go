package db

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Durability is what a commit acknowledged to docbench survives: the class
// the fairness audit compares between targets.
type Durability string

// Durability classes.
const (
	// DurableAtCommit: flushed to stable storage before the commit returns.
	DurableAtCommit Durability = "durable-at-commit"
	// GroupCommit: written to the operating system at commit and synced
	// periodically (or at checkpoints): survives a server crash, not a power
	// loss.
	GroupCommit Durability = "group-commit"
	// Async: acknowledged before it leaves the server's memory: a server
	// crash can lose recent commits.
	Async Durability = "async"
	// NoFsync: the server never syncs; a power loss can corrupt data.
	NoFsync Durability = "no-fsync"
	// DurabilityUnknown: the settings do not say.
	DurabilityUnknown Durability = "unknown"
)

// KeyIndex is how a document is found by its key: the class the fairness
// audit compares between targets.
type KeyIndex string

// Key index classes.
const (
	KeyPrimaryBtree    KeyIndex = "primary-btree"    // a primary key (b-tree, clustered or not)
	KeyIDIndex         KeyIndex = "_id"              // MongoDB's _id index
	KeyExpressionBtree KeyIndex = "expression-btree" // a b-tree on an expression over the document
	KeyGeneratedColumn KeyIndex = "generated-column" // a unique/primary index on a generated column
	KeyGINDocument     KeyIndex = "gin-whole-document"
	KeyNone            KeyIndex = "none"
)

// Audit is one target's classification for the fairness audit ("audit" in
// the result JSON). A backend derives it from the settings and layout its
// Info recorded (Backend.Audit), so old results can be audited too.
type Audit struct {
	Durability       Durability `json:"durability"`
	DurabilityDetail string     `json:"durability_detail"`
	KeyIndex         KeyIndex   `json:"key_index"`
	KeyIndexDetail   string     `json:"key_index_detail"`
	// SecondaryIndexes lists the indexed document paths ("none"), the same
	// text on every backend for the same paths; the detail has the
	// catalog's definitions.
	SecondaryIndexes       string `json:"secondary_indexes"`
	SecondaryIndexesDetail string `json:"secondary_indexes_detail,omitempty"`
	Compression            string `json:"compression"`
	Memory                 string `json:"memory"`
	// Clients is the phase's client count, set by the caller: it is not
	// the backend's to say.
	Clients int `json:"clients"`
	// Reference is set when the server is not a performance reference
	// (the MongoDB wire-protocol peer).
	Reference string `json:"not_a_reference,omitempty"`
}

// NewAudit returns the classification of a target nothing is known about:
// unknown durability, no key index, no secondary index, no compression,
// unknown memory. A backend's Audit function starts from it.
func NewAudit() Audit {
	return Audit{Durability: DurabilityUnknown, KeyIndex: KeyNone, SecondaryIndexes: "none",
		Compression: "none", Memory: "unknown"}
}

// Classify derives the audit classification of a result recorded by the
// backend named backend (Info.Backend) from its recorded settings and
// layout. An unknown backend, or one with no Audit function, gets NewAudit.
// Clients is left for the caller.
func Classify(backend string, settings, layout map[string]string) Audit {
	mu.RLock()
	b := backends[backend]
	mu.RUnlock()
	a := NewAudit()
	if b != nil && b.Audit != nil {
		a = b.Audit(settings, layout)
	}
	a.auditIndexes(layout)
	if a.DurabilityDetail == "" {
		a.DurabilityDetail = "settings not recorded"
	}
	return a
}

// Setting returns a recorded setting trimmed and in lower case ("" when
// absent), as the audit functions compare them.
func Setting(settings map[string]string, name string) string {
	return strings.ToLower(strings.TrimSpace(settings[name]))
}

// FormatBytes renders a byte count with a binary unit.
func FormatBytes(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1<<30:
		return fmt.Sprintf("%.2f GiB", v/(1<<30))
	case a >= 1<<20:
		return fmt.Sprintf("%.2f MiB", v/(1<<20))
	case a >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	}
	return fmt.Sprintf("%.0f B", v)
}

// HumanBytes renders a byte count recorded as text (a server setting) with
// a binary unit; other text is kept as it is.
func HumanBytes(v string) string {
	n, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return v
	}
	return FormatBytes(n)
}

// IndexPathComment prefixes the comment docbench gives the index it creates
// for a secondary path, where the server keeps comments; the path follows.
const IndexPathComment = "docbench path: "

// CatalogIndex is a secondary index as the server's catalog describes it:
// the document path docbench created it for ("" for an index of another's)
// and its definition.
type CatalogIndex struct{ Path, Def string }

// SetIndexLayout records the secondary indexes a table has in an Info's
// layout: "secondary_indexes" lists the indexed paths (an index of
// another's by its definition), sorted, the form the fairness audit
// compares between backends; "secondary_index_definitions" the catalog's
// definitions in the same order. No index: neither is set.
func SetIndexLayout(layout map[string]string, ixs []CatalogIndex) {
	if len(ixs) == 0 {
		return
	}
	ixs = slices.Clone(ixs)
	name := func(ix CatalogIndex) string { return cmp.Or(ix.Path, ix.Def) }
	slices.SortFunc(ixs, func(a, b CatalogIndex) int { return cmp.Or(cmp.Compare(name(a), name(b)), cmp.Compare(a.Def, b.Def)) })
	var paths, defs []string
	for _, ix := range ixs {
		if n := name(ix); len(paths) == 0 || paths[len(paths)-1] != n {
			paths = append(paths, n)
		}
		defs = append(defs, ix.Def)
	}
	layout["secondary_indexes"] = strings.Join(paths, ", ")
	layout["secondary_index_definitions"] = strings.Join(defs, "; ")
}

// auditIndexes sets an audit's secondary indexes from a layout
// SetIndexLayout wrote; an older result's are the backend's to read.
func (a *Audit) auditIndexes(layout map[string]string) {
	if v := layout["secondary_indexes"]; v != "" {
		a.SecondaryIndexes = v
		a.SecondaryIndexesDetail = layout["secondary_index_definitions"]
	}
}
