package probe

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// Classify derives a target's audit classification from what its result
// recorded: the backend's own classification of its settings and layout
// (db.Classify), and the phase's client count.
func Classify(backend string, settings, layout map[string]string, clients int) db.Audit {
	a := db.Classify(backend, settings, layout)
	a.Clients = clients
	return a
}

// Target is one side of a comparison: a name and its audit.
type Target struct {
	Name    string
	Backend string
	Audit   db.Audit
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
	aspect := func(name string, strict bool, val func(db.Audit) string, meaning func() string) Finding {
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
	out = append(out, aspect("durability", true, func(a db.Audit) string { return string(a.Durability) }, func() string {
		var parts []string
		for _, t := range ts {
			parts = append(parts, t.Name+": "+string(t.Audit.Durability)+" ("+t.Audit.DurabilityDetail+")")
		}
		return "commits are not equally safe, so throughput is not comparable: " + strings.Join(parts, "; ")
	}))
	out = append(out, aspect("key index", true, func(a db.Audit) string { return string(a.KeyIndex) }, func() string {
		var parts []string
		unfair := false
		for _, t := range ts {
			parts = append(parts, t.Name+": "+describeKey(t.Audit))
			unfair = unfair || t.Audit.KeyIndex == db.KeyGINDocument || t.Audit.KeyIndex == db.KeyNone
		}
		msg := "documents are found by key through different indexes: " + strings.Join(parts, "; ")
		if unfair {
			msg += " — the unfair setup Dmitry Dolgov's \"Jsonb: few more stories about the performance\" (blog post, 2017) warns of: a whole-document or missing index against a key index"
		}
		return msg
	}))
	out = append(out, aspect("secondary indexes", false, func(a db.Audit) string { return a.SecondaryIndexes }, nil))
	out = append(out, aspect("compression", false, func(a db.Audit) string { return a.Compression }, nil))
	out = append(out, aspect("memory", false, func(a db.Audit) string { return a.Memory }, nil))
	out = append(out, aspect("clients", false, func(a db.Audit) string { return strconv.Itoa(a.Clients) }, func() string {
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

func describeKey(a db.Audit) string {
	switch a.KeyIndex {
	case db.KeyGINDocument:
		return "GIN over whole document for key lookup"
	case db.KeyIDIndex:
		return "_id index"
	case db.KeyNone:
		return "no key index (sequential scan)"
	}
	if a.KeyIndexDetail != "" {
		return string(a.KeyIndex) + " (" + a.KeyIndexDetail + ")"
	}
	return string(a.KeyIndex)
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
