package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/runner"
	"github.com/docbench/docbench/internal/workload"
)

// configFromFlags reads -P files and -p overrides and validates them.
func configFromFlags(files, overrides []string) (*workload.Config, error) {
	props, err := propsFromFlags(files, overrides)
	if err != nil {
		return nil, err
	}
	return config(props)
}

// propsFromFlags reads -P files and -p overrides.
func propsFromFlags(files, overrides []string) (*workload.Properties, error) {
	props := workload.NewProperties()
	for _, w := range files {
		if err := props.LoadFile(w); err != nil {
			return nil, &ExitError{Code: 2, Err: err}
		}
	}
	for _, kv := range overrides {
		if err := props.ParseOverride(kv); err != nil {
			return nil, &ExitError{Code: 2, Err: fmt.Errorf("-p %s: %w", kv, err)}
		}
	}
	return props, nil
}

func (a *app) docCommand() *cobra.Command {
	var files, overrides []string
	var keynum int64
	var seed uint64
	var compact, paths bool
	cmd := &cobra.Command{
		Use:   "doc [-P WORKLOAD] [-p key=value]... --key N",
		Short: "Print the document stored under key number N (or the paths the documents have)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := configFromFlags(files, overrides)
			if err != nil {
				return err
			}
			wl, docOps, err := buildDocOps(cfg, seed)
			if err != nil {
				return err
			}
			if paths {
				return a.printPaths(wl, docOps, cfg.RecordCount)
			}
			if !cmd.Flags().Changed("key") {
				return &ExitError{Code: exitUsage, Err: errors.New("doc: --key N is required (the key number, 0 or more), or --paths to list the documents' paths")}
			}
			if keynum < 0 {
				return &ExitError{Code: exitUsage, Err: fmt.Errorf("doc: --key %d: want a key number, 0 or more", keynum)}
			}
			key := wl.NewThread(0).AppendKey(nil, keynum)
			d := docOps.Shape.AppendDoc(nil, key, keynum, document.NewRand())
			if !compact {
				var out bytes.Buffer
				if err := json.Indent(&out, d, "", "  "); err != nil {
					return err
				}
				d = out.Bytes()
			}
			fmt.Fprintf(a.stderr, "key %s (key number %d), %d bytes as compact JSON\n", key, keynum, len(docOps.Shape.AppendDoc(nil, key, keynum, document.NewRand())))
			_, err = fmt.Fprintf(a.stdout, "%s\n", d)
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&files, "workload", "P", nil, "workload file or built-in name; repeatable")
	fl.StringArrayVarP(&overrides, "property", "p", nil, "property key=value; repeatable")
	fl.Int64Var(&keynum, "key", 0, "key number: the record's position in YCSB's key space, 0 or more (required)")
	fl.Uint64Var(&seed, "seed", 1, "seed of the documents")
	fl.BoolVar(&compact, "compact", false, "print compact JSON, as stored")
	fl.BoolVar(&paths, "paths", false, "list the documents' paths, with type, depth and the share of documents that have each, instead")
	return cmd
}

// pathSample bounds the documents doc --paths generates to count its paths.
const pathSample = 2000

// printPaths lists the documents' paths with their type, depth and share
// of documents: counted on the load's documents, or on pathSample of them
// spread over its key space (the first pathSample without recordcount).
func (a *app) printPaths(wl *workload.Workload, docOps *runner.DocOps, records int64) error {
	of := "the"
	if records < 1 { // no recordcount: the first documents
		records, of = pathSample, "the first"
	}
	n := min(records, pathSample)
	present := map[string]int64{}
	th := wl.NewThread(0)
	r := document.NewRand()
	var key, buf []byte
	seen := map[string]bool{}
	for i := range n {
		k := i * max(records/n, 1)
		key = th.AppendKey(key[:0], k)
		buf = docOps.Shape.AppendDoc(buf[:0], key, k, r)
		var v any
		if err := json.Unmarshal(buf, &v); err != nil {
			return fmt.Errorf("doc --paths: document %d: %w", k, err)
		}
		clear(seen)
		docPaths(v, "", seen)
		for p := range seen {
			present[p]++
		}
	}
	of = "of " + of + " " + db.Thousands(n) + " documents"
	if n < records {
		of = fmt.Sprintf("of %s documents spread over the %s", db.Thousands(n), db.Thousands(records))
	}
	fmt.Fprintf(a.stdout, "%-40s %-22s %5s  %s\n", "PATH", "TYPE", "DEPTH", "PRESENT (share "+of+")")
	for _, p := range docOps.Shape.Paths() {
		kind := p.Type
		if p.Array {
			kind = "array of " + p.Items
		}
		fmt.Fprintf(a.stdout, "%-40s %-22s %5d  %s\n", p.Path, kind, p.Depth, share(present[p.Path], n))
	}
	return nil
}

// docPaths adds to seen the dotted paths a decoded document has; the
// fields of an array's elements continue the array's path ("tags.term").
func docPaths(v any, prefix string, seen map[string]bool) {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			seen[p] = true
			docPaths(x, p, seen)
		}
	case []any:
		for _, x := range v {
			docPaths(x, prefix, seen)
		}
	}
}

// share formats k of n as a percentage: "100%", "37.5%", "0.05%".
func share(k, n int64) string {
	switch {
	case k == n:
		return "100%"
	case k == 0:
		return "0%"
	}
	pc := 100 * float64(k) / float64(n)
	if pc >= 1 {
		return strconv.FormatFloat(pc, 'f', 1, 64) + "%"
	}
	return strconv.FormatFloat(pc, 'g', 2, 64) + "%"
}

func (a *app) verifyCommand() *cobra.Command {
	var target string
	var files, overrides []string
	var threads int
	var seed uint64
	cmd := &cobra.Command{
		Use:   "verify -t TARGET -P WORKLOAD [-p key=value]...",
		Short: "Re-read every loaded record and compare it with the regenerated document",
		Long: `verify reads every record of the load range (insertstart, insertcount) and compares it
with the document docbench generates for its key. A record is "intact" when equal, "updated"
when it has the same fields with values of the same types (what updates produce), "missing"
or "corrupt" otherwise. Missing or corrupt records make the exit status non-zero.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := configFromFlags(files, overrides)
			if err != nil {
				return err
			}
			wl, docOps, err := buildDocOps(cfg, seed)
			if err != nil {
				return err
			}
			store, err := a.open(cmd.Context(), target, cfg, true)
			if err != nil {
				return notLoaded(err, target, files, overrides)
			}
			defer store.Close()
			return notLoaded(a.verify(cmd.Context(), store, wl, docOps, max(threads, 1)), target, files, overrides)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&target, "target", "t", "", "database target")
	fl.StringArrayVarP(&files, "workload", "P", nil, "workload file or built-in name; repeatable")
	fl.StringArrayVarP(&overrides, "property", "p", nil, "property key=value; repeatable")
	fl.IntVar(&threads, "threads", 2, "reading threads")
	fl.Uint64Var(&seed, "seed", 1, "seed the documents were loaded with")
	_ = cmd.MarkFlagRequired("target")
	return cmd
}

// verify runs runner.Verify and prints what it found; missing or corrupt
// records are exit status 1.
func (a *app) verify(ctx context.Context, store db.Store, wl *workload.Workload, docOps *runner.DocOps, threads int) error {
	v, err := runner.Verify(ctx, store, wl, docOps, threads)
	if err != nil {
		return err
	}
	n := func(v int64) string { return db.Thousands(v) }
	fmt.Fprintf(a.stdout, "verified %s records: %s intact, %s updated, %s missing, %s corrupt\n",
		n(v.Records), n(v.Intact), n(v.Updated), n(v.Missing), n(v.Corrupt))
	if !v.OK() {
		return &ExitError{Code: 1, Err: fmt.Errorf("verify: %d missing and %d corrupt records (first corrupt: %v)", v.Missing, v.Corrupt, v.FirstCorrupt)}
	}
	return nil
}
