package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
)

func (a *app) targetsCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "targets",
		Short: "List backends, target URL forms and layout options",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, b := range db.Backends() {
				fmt.Fprint(a.stdout, wrap(b.Name+": "+b.Summary, "", 100))
				for _, f := range b.Forms {
					entry(a.stdout, f.Form, f.Help)
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
					entry(a.stdout, "-p "+vals, help)
				}
				for _, p := range b.OptionPrefixes {
					entry(a.stdout, "-p "+p+"NAME=VALUE", prefixHelp(p))
				}
				fmt.Fprintln(a.stdout)
			}
			return nil
		},
	}
}

// entry prints one form or option of `docbench targets`: on one line when
// it fits 100 columns, else the name and then its help, indented.
func entry(w io.Writer, name, help string) {
	if one := "  " + name + "  " + help; len([]rune(one)) <= 100 {
		fmt.Fprintln(w, one)
		return
	}
	fmt.Fprintln(w, "  "+name)
	fmt.Fprint(w, wrap(help, "      ", 100))
}

func prefixHelp(p string) string {
	if p == "server." {
		return "server setting: passed to a managed server at start, set per session on other servers"
	}
	return ""
}
