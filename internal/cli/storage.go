package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/report"
	"github.com/docbench/docbench/internal/storage"
)

// storageDocs is the documents generated when no file is given.
const storageDocs = 1000

func (a *app) storageCommand() *cobra.Command {
	var targets, files, overrides []string
	var format string
	var seed uint64
	var doc int
	var htmlOut, layout string
	cmd := &cobra.Command{
		Use:   "storage [FILE.ndjson] [-t TARGET]... [--layout L] [-P WORKLOAD] [-p key=value]...",
		Short: "Show how documents are stored on each target: sizes per format, TOAST, chunks",
		Long: `storage loads the documents of FILE.ndjson (one JSON object per line), or those a workload
generates (-P/-p, recordcount of them, 1,000 when not set), into a scratch table docbench creates on
each target and drops after, and reports from the server's own figures their size as text, in the
stored format before compression and as stored, the table, TOAST and indexes per document, and on
PostgreSQL where each value went (in-line, compressed, out of line) and in how many TOAST chunks,
under the default storage and under STORAGE MAIN, EXTERNAL and the other compression method.
The targets are postgres:embedded and a temporary SQLite file unless -t names others.
With --doc N it maps one document (line N of the file, or key number N) byte by byte in jsonb,
SQLite JSONB and BSON, by docbench's own encoders, beside the servers' sizes of it.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if format != "text" && format != "json" {
				return &ExitError{Code: exitUsage, Err: fmt.Errorf("--format %q: want text or json", format)}
			}
			props, err := propsFromFlags(files, overrides)
			if err != nil {
				return err
			}
			var docs *storage.Docs
			if len(args) == 1 {
				docs, err = storage.ReadFile(args[0])
			} else {
				docs, err = generatedDocs(files, overrides, seed)
			}
			if err != nil {
				return badStorageInput(err)
			}
			if cmd.Flags().Changed("doc") {
				if docs, err = docs.Pick(doc); err != nil {
					return badStorageInput(err)
				}
			}
			if len(targets) == 0 {
				dir, err := os.MkdirTemp("", "docbench-storage-")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				targets = []string{"postgres:embedded", "sqlite:" + filepath.Join(dir, "storage.db")}
			}
			rep := &storage.Report{Source: docs.Source, Documents: len(docs.Data)}
			logf := func(f string, args ...any) { fmt.Fprintf(a.stderr, f+"\n", args...) }
			for _, t := range targets {
				fmt.Fprintf(a.stderr, "storage: loading %d documents into %s\n", len(docs.Data), t)
				req := storage.Request{Target: t, Props: withLayout(props.Map(), t, layout, logf), Log: logf, DefaultOnly: cmd.Flags().Changed("doc")}
				res, err := storage.Measure(cmd.Context(), req, docs)
				if err != nil {
					return badStorageInput(notOurs(fmt.Errorf("target %q: %w", t, err)))
				}
				rep.Targets = append(rep.Targets, *res)
			}
			if cmd.Flags().Changed("doc") {
				return a.docMap(docs, rep, format, htmlOut)
			}
			if err := writeStorageHTML(htmlOut, rep, nil); err != nil {
				return err
			}
			if format == "json" {
				return storage.WriteJSON(a.stdout, rep)
			}
			return storage.WriteText(a.stdout, rep)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVarP(&targets, "target", "t", nil, "database target; repeatable (default: postgres:embedded and a temporary SQLite file)")
	fl.StringArrayVarP(&files, "workload", "P", nil, "workload file or built-in name whose documents to generate; repeatable")
	fl.StringArrayVarP(&overrides, "property", "p", nil, "property key=value (document.shape=…, recordcount=…, target options); repeatable")
	fl.StringVar(&layout, "layout", "", "the table's layout, as -p layout=…: column (default) or document (the key inside the document) on PostgreSQL, generated or column on MySQL")
	fl.StringVar(&format, "format", "text", "output: text or json (json shows the queries behind every figure)")
	fl.Uint64Var(&seed, "seed", 1, "seed of generated documents")
	fl.StringVar(&htmlOut, "html", "", "also write an offline HTML page: the size histogram with the TOAST threshold, or --doc's byte maps drawn")
	fl.IntVar(&doc, "doc", 0, "map one document byte by byte: its line number in FILE, or the key number of a generated one")
	return cmd
}

// withLayout is props with layout=L for a target whose backend has that
// layout; another target keeps its own, and the log says so.
func withLayout(props map[string]string, target, layout string, logf func(string, ...any)) map[string]string {
	if layout == "" {
		return props
	}
	b, err := db.Lookup(target)
	if err != nil {
		return props // Measure names the target's fault
	}
	for _, o := range b.Options {
		if o.Name != "layout" {
			continue
		}
		if slices.Contains(o.Values, layout) {
			out := maps.Clone(props)
			out["layout"] = layout
			return out
		}
		logf("storage: %s has no layout=%s (its layouts: %s): measured in its default, %s", b.Name, layout, strings.Join(o.Values, ", "), o.Default)
		return props
	}
	logf("storage: %s has one layout: --layout does not apply to it", b.Name)
	return props
}

// generatedDocs are recordcount documents of the workload, keys 0, 1, ….
func generatedDocs(files, overrides []string, seed uint64) (*storage.Docs, error) {
	cfg, err := configFromFlags(files, overrides)
	if err != nil {
		return nil, err
	}
	wl, docOps, err := buildDocOps(cfg, seed)
	if err != nil {
		return nil, err
	}
	n := cfg.RecordCount
	if n == 0 {
		n = storageDocs
	}
	source := "generated documents"
	if len(files)+len(overrides) > 0 {
		source += " of " + strings.Join(append(append([]string{}, files...), overrides...), " ")
	}
	docs := &storage.Docs{Source: source, Data: make([][]byte, n)}
	th := wl.NewThread(0)
	r := document.NewRand()
	for k := range n {
		key := th.AppendKey(nil, k)
		docs.Data[k] = docOps.Shape.AppendDoc(nil, key, k, r)
	}
	return docs, nil
}

// badStorageInput makes a malformed input file, or a target that cannot
// tell its storage, a usage error (exit 2).
func badStorageInput(err error) error {
	var bad *storage.BadInput
	var ns *db.ErrNotSupported
	if errors.As(err, &bad) || errors.As(err, &ns) {
		return &ExitError{Code: exitUsage, Err: err}
	}
	return err
}

// docMap prints the byte maps of the one document in docs, with the
// servers' sizes of it.
func (a *app) docMap(docs *storage.Docs, rep *storage.Report, format, htmlOut string) error {
	maps, err := storage.DocMaps(docs.Data[0])
	if err != nil {
		return badStorageInput(&storage.BadInput{Err: fmt.Errorf("%s: %w", docs.Label(0), err)})
	}
	r := &storage.DocReport{Document: docs.Source + " " + docs.Label(0), BytesText: len(docs.Data[0]), Formats: maps}
	for i := range rep.Targets {
		r.Servers = append(r.Servers, storage.ServerSizeOf(&rep.Targets[i]))
	}
	if err := writeStorageHTML(htmlOut, rep, r); err != nil {
		return err
	}
	if format == "json" {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(a.stdout, "%s\n", b)
		return err
	}
	storage.WriteDocText(a.stdout, r)
	return nil
}

// writeStorageHTML writes the HTML page to path, atomically; "" writes
// nothing.
func writeStorageHTML(path string, rep *storage.Report, d *storage.DocReport) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := storage.WriteHTML(&b, rep, d); err != nil {
		return err
	}
	if err := report.WriteFileAtomic(path, b.Bytes()); err != nil {
		return fmt.Errorf("--html %s: %w", path, err)
	}
	return nil
}
