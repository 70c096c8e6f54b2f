package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/server"
)

func (a *app) cacheCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "cache [clean]",
		Short: "Show where docbench keeps downloads and managed data, or remove them (clean)",
		Long: `docbench keeps the PostgreSQL binaries it downloads, initdb templates, the persistent
cluster of postgres:embedded (data/) and built test peers in one cache directory:
$DOCBENCH_CACHE when set, else /var/cache/docbench as root (the managed server runs as an
unprivileged account that cannot enter /root) and the user's cache directory
($XDG_CACHE_HOME/docbench, ~/.cache/docbench) otherwise.`,
		Example: `  docbench cache                 # the directory and what it holds
  docbench cache clean           # remove it all (downloads come back on next use)
  DOCBENCH_CACHE=/data/docbench docbench quickstart`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := server.CacheDir()
			if err != nil {
				return err
			}
			entries, err := server.CacheContents()
			if err != nil {
				return err
			}
			var total int64
			for _, e := range entries {
				fmt.Fprintf(a.stdout, "  %-36s %s\n", e.Name, bytesText(e.Bytes))
				total += e.Bytes
			}
			fmt.Fprintf(a.stdout, "%s: %s in %d entries (DOCBENCH_CACHE chooses another place; docbench cache clean empties it)\n",
				dir, bytesText(total), len(entries))
			return nil
		},
	}
	clean := &cobra.Command{
		Use:   "clean",
		Short: "Remove everything in the cache, the persistent postgres:embedded cluster included",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := server.CacheDir()
			if err != nil {
				return err
			}
			removed, err := server.CleanCache()
			var total int64
			for _, e := range removed {
				total += e.Bytes
			}
			switch {
			case len(removed) == 0 && err == nil:
				fmt.Fprintf(a.stdout, "nothing to remove: %s is empty\n", dir)
			case len(removed) > 0:
				fmt.Fprintf(a.stdout, "removed %s from %s (%s)\n", bytesText(total), dir, plural(len(removed), "entry", "entries"))
			}
			return err
		},
	}
	cmd.AddCommand(clean)
	return cmd
}

// bytesText prints a size in binary units.
func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
