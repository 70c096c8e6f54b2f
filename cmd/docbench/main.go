// Command docbench benchmarks JSON-document workloads on PostgreSQL, SQLite
// and more. See README.md.
package main

import (
	"os"

	"github.com/docbench/docbench/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
