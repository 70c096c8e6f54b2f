package cli

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/study"
	"github.com/docbench/docbench/internal/workload"
	"github.com/docbench/docbench/workloads"
)

// addCompletions makes the shell completion (`docbench completion bash`)
// offer, beside the flags cobra completes itself: study names, target
// forms, built-in workloads, property names and formats, on every command
// with such an argument or flag.
func addCompletions(root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		flag := func(name string, f cobra.CompletionFunc) {
			if c.Flags().Lookup(name) != nil {
				_ = c.RegisterFlagCompletionFunc(name, f)
			}
		}
		flag("target", completeTargets)
		flag("workload", completeWorkloads)
		flag("property", completeProperties)
		flag("format", fixed("text\tfor a person", "ycsb\tYCSB's report lines", "json\tthe result document", "jsonl\tthe result on one line"))
		if c.Name() == "study" && c.HasParent() && c.Parent() == root {
			c.ValidArgsFunction = completeStudies
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// matching keeps the candidates ("value\tdescription") whose value starts
// with prefix.
func matching(prefix string, candidates []string) []string {
	var out []string
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

func fixed(values ...string) cobra.CompletionFunc {
	return func(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return matching(prefix, values), cobra.ShellCompDirectiveNoFileComp
	}
}

// completeStudies offers the built-in studies; a study file is completed
// as a file when no name matches.
func completeStudies(_ *cobra.Command, args []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	if names := matching(prefix, study.Names()); len(names) > 0 {
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// completeTargets offers every backend's target forms, described.
func completeTargets(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var forms []string
	for _, b := range db.Backends() {
		for _, f := range b.Forms {
			forms = append(forms, f.Form+"\t"+f.Help)
		}
	}
	return matching(prefix, forms), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

// completeWorkloads offers the built-in workloads; a workload file is
// completed as a file when no name matches.
func completeWorkloads(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if names := matching(prefix, workloads.Names()); len(names) > 0 {
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	return nil, cobra.ShellCompDirectiveDefault
}

// completeProperties offers "name=" for every workload property and
// backend option, described; after the "=", a backend option's values.
func completeProperties(_ *cobra.Command, _ []string, prefix string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if name, _, ok := strings.Cut(prefix, "="); ok {
		var vals []string
		for _, b := range db.Backends() {
			for _, o := range b.Options {
				if o.Name == name {
					for _, v := range o.Values {
						vals = appendOnce(vals, name+"="+v)
					}
				}
			}
		}
		return matching(prefix, vals), cobra.ShellCompDirectiveNoFileComp
	}
	var names []string
	for _, p := range workload.Help() {
		names = append(names, p.Name+"=\t"+p.Meaning)
	}
	// A backend option once, with the backends that take it.
	var options []string
	backends := map[string][]string{}
	for _, b := range db.Backends() {
		for _, o := range b.Options {
			if backends[o.Name] == nil {
				options = append(options, o.Name)
			}
			backends[o.Name] = append(backends[o.Name], b.Name)
		}
	}
	for _, o := range options {
		names = append(names, o+"=\toption of "+strings.Join(backends[o], ", ")+" (docbench targets)")
	}
	return matching(prefix, names), cobra.ShellCompDirectiveNoFileComp | cobra.ShellCompDirectiveNoSpace
}

func appendOnce(xs []string, s string) []string {
	for _, x := range xs {
		if x == s {
			return xs
		}
	}
	return append(xs, s)
}
