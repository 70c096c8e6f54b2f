package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/workload"
)

// propertiesTopic is `docbench help properties`: every property with its
// default, meaning and the backends that honour it, generated from the
// tables the validator uses.
func propertiesTopic() *cobra.Command {
	var b strings.Builder
	b.WriteString("Properties are set in workload files (-P) and with -p key=value; later files override\n" +
		"earlier ones, -p overrides files, flags override properties.\n\n" +
		"Workload properties (YCSB's CoreWorkload and docbench's document operations), every backend:\n\n")
	for _, h := range workload.Help() {
		def := h.Default
		if def == "" {
			def = "—"
		}
		fmt.Fprintf(&b, "  %-44s default %s\n%s", h.Name, def, wrap(h.Meaning, "      ", 100))
	}
	b.WriteString("\nDocument shape properties, every backend (defaults and meanings: docs/documents.md):\n\n")
	b.WriteString(wrap(strings.Join(document.Keys(), ", "), "  ", 100))
	b.WriteString("\nBackend options (a backend refuses another's option set to a non-default value):\n\n")
	for _, be := range db.Backends() {
		for _, o := range be.Options {
			def := o.Default
			if def == "" {
				def = "—"
			}
			vals := ""
			if len(o.Values) > 0 {
				vals = " (" + strings.Join(o.Values, "|") + ")"
			}
			fmt.Fprintf(&b, "  %-28s %s, default %s\n%s", o.Name, be.Name, def, wrap(strings.TrimSpace(vals+" "+o.Help), "      ", 100))
		}
		for _, p := range be.OptionPrefixes {
			fmt.Fprintf(&b, "  %-28s %s: passed to the server (e.g. server settings)\n", p+"NAME", be.Name)
		}
	}
	return &cobra.Command{
		Use:   "properties",
		Short: "Every property: default, meaning, which backends honour it",
		Long:  b.String(),
	}
}

// wrap breaks text into lines of at most width columns, each indented.
func wrap(text, indent string, width int) string { return wrapHang(text, indent, indent, width) }

// wrapHang is wrap with a different indent for the first line.
func wrapHang(text, first, rest string, width int) string {
	return report.WrapHang(text, first, rest, width)
}
