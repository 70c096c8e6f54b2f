package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
)

func (a *app) targetsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "targets",
		Short: "List backends, target URL forms and layout options",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			for _, b := range db.Backends() {
				fmt.Fprintf(tw, "%s\t%s\n", b.Name, b.Summary)
				for _, f := range b.Forms {
					fmt.Fprintf(tw, "  %s\t%s\n", f.Form, f.Help)
				}
				for _, o := range b.Options {
					vals := o.Name + "=…"
					if len(o.Values) > 0 {
						vals = o.Name + "=" + strings.Join(o.Values, "|")
					}
					help := o.Help
					if o.Default != "" {
						help += " (default " + o.Default + ")"
					}
					fmt.Fprintf(tw, "  -p %s\t%s\n", vals, help)
				}
				for _, p := range b.OptionPrefixes {
					fmt.Fprintf(tw, "  -p %sNAME=VALUE\t%s\n", p, prefixHelp(p))
				}
				fmt.Fprintln(tw, "\t")
			}
			return tw.Flush()
		},
	}
}

func prefixHelp(p string) string {
	if p == "server." {
		return "server setting: passed to a managed server at start, set per session on other servers"
	}
	return ""
}
