// Package storage answers `docbench storage`: how the user's documents are
// stored on each target — their size as text, in the stored format and as
// stored, the table, TOAST and indexes per document, and on PostgreSQL
// where each value went (in-line, compressed, out of line) under each
// storage choice — from the servers' own figures, measured by loading the
// documents into a scratch table docbench creates and drops.
package storage

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/docbench/docbench/internal/db"
)

// Docs are the documents to measure.
type Docs struct {
	// Source names them: a file, or the workload that generated them.
	Source string
	// Data are the documents, compact or as the file holds them.
	Data [][]byte
	// Lines are the line numbers of the documents in Source (nil for
	// generated documents: document i is key number FirstKey+i).
	Lines    []int
	FirstKey int
}

// TextSizes are the documents' sizes as text.
func (d *Docs) TextSizes() []int64 {
	text := make([]int64, len(d.Data))
	for i, doc := range d.Data {
		text[i] = int64(len(doc))
	}
	return text
}

// Label names document i as the user finds it: "line 12", "key 11".
func (d *Docs) Label(i int) string {
	if d.Lines != nil {
		return fmt.Sprintf("line %d", d.Lines[i])
	}
	return fmt.Sprintf("key %d", d.FirstKey+i)
}

// BadInput is input docbench cannot measure: a malformed line.
type BadInput struct{ Err error }

func (e *BadInput) Error() string { return e.Err.Error() }
func (e *BadInput) Unwrap() error { return e.Err }

// ReadNDJSON reads one JSON object per line (blank lines skipped). A line
// that is not a JSON object is *BadInput naming name and the line.
func ReadNDJSON(r io.Reader, name string) (*Docs, error) {
	d := &Docs{Source: name, Lines: []int{}}
	br := bufio.NewReaderSize(r, 1<<20)
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			t := bytes.TrimSpace(line)
			switch {
			case len(t) == 0:
			case t[0] != '{' || !json.Valid(t):
				return nil, &BadInput{Err: fmt.Errorf("%s:%d: not a JSON object: %s", name, n, excerpt(t))}
			default:
				d.Data = append(d.Data, t)
				d.Lines = append(d.Lines, n)
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	if len(d.Data) == 0 {
		return nil, &BadInput{Err: fmt.Errorf("%s: no documents (want one JSON object per line)", name)}
	}
	return d, nil
}

// ReadFile is ReadNDJSON of a file.
func ReadFile(path string) (*Docs, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &BadInput{Err: err}
	}
	defer f.Close()
	return ReadNDJSON(f, path)
}

// excerpt is the start of a bad line, for its error message.
func excerpt(b []byte) string {
	const n = 40
	if len(b) > n {
		return fmt.Sprintf("%q…", b[:n])
	}
	return fmt.Sprintf("%q", b)
}

// Request is one target to measure.
type Request struct {
	Target string
	// Props are the properties the target is opened with.
	Props map[string]string
	// Log receives progress lines (may be nil).
	Log func(format string, args ...any)
	// DefaultOnly measures the server's default storage alone.
	DefaultOnly bool
}

// Table is the scratch table's name: docbench's, with the process id so
// that two commands at once do not meet.
func Table() string { return fmt.Sprintf("docbench_storage_%d", os.Getpid()) }

// Measure loads docs into a scratch table on the target, once per storage
// choice the server offers, and returns the figures; the table is dropped
// after each.
func Measure(ctx context.Context, req Request, docs *Docs) (*Target, error) {
	props := columnLayout(req.Target, req.Props)
	if err := db.Check(req.Target, props); err != nil {
		return nil, &BadInput{Err: err}
	}
	store, err := db.Open(ctx, db.OpenRequest{Target: req.Target, Props: props, Threads: loaders, Log: req.Log})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	sizer, ok := store.(db.StorageSizer)
	owner, owns := store.(db.TableOwner)
	b, _ := db.Lookup(req.Target)
	if !ok || !owns {
		return nil, &db.ErrNotSupported{Backend: b.Name, What: "docbench storage"}
	}
	out := &Target{Target: db.Redact(req.Target), Backend: b.Name}
	if info, err := store.Info(ctx); err == nil {
		out.Version = info.Version
	}
	var choices []db.StorageChoice
	if !req.DefaultOnly {
		if choices, err = sizer.StorageChoices(ctx); err != nil {
			return nil, err
		}
	}
	table := Table()
	if err := owner.Owns(ctx, table); err != nil {
		return nil, err
	}
	var formatted []int64
	for i, c := range append([]db.StorageChoice{{}}, choices...) {
		f := &Figures{Choice: c.Name, Missing: c.Missing}
		if c.Missing == "" {
			if f, formatted, err = measureChoice(ctx, store, sizer, owner, table, c, docs, formatted); err != nil {
				return nil, err
			}
		}
		if i == 0 {
			f.Choice = "default"
			out.Figures = *f
		} else {
			out.Choices = append(out.Choices, *f)
		}
	}
	return out, nil
}

// columnLayout returns props with layout=column when the target's backend
// has that layout and props choose none: the documents alone in their
// column, without a key inside them.
func columnLayout(target string, props map[string]string) map[string]string {
	b, err := db.Lookup(target)
	if err != nil || props["layout"] != "" {
		return props
	}
	for _, o := range b.Options {
		if o.Name == "layout" && slices.Contains(o.Values, "column") {
			out := maps.Clone(props)
			if out == nil {
				out = map[string]string{}
			}
			out["layout"] = "column"
			return out
		}
	}
	return props
}

// measureChoice loads the documents under one storage choice, reads the
// server's figures and drops the table, whatever happened. The documents'
// sizes in the stored format are read once (formatted, nil the first time).
func measureChoice(ctx context.Context, store db.Store, sizer db.StorageSizer, owner db.TableOwner,
	table string, c db.StorageChoice, docs *Docs, formatted []int64) (f *Figures, _ []int64, err error) {
	if err := sizer.UseStorageChoice(c); err != nil {
		return nil, nil, err
	}
	mark := db.Mark{By: "docbench storage", Created: time.Now(), Records: int64(len(docs.Data))}
	if err := store.Setup(ctx, db.Schema{Table: table, Mark: mark}, true); err != nil {
		return nil, nil, err
	}
	defer func() {
		// Dropped even when ctx was cancelled: the scratch table never stays.
		dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		if derr := owner.Drop(dctx, table); derr != nil {
			err = errors.Join(err, fmt.Errorf("dropping the scratch table %s: %w", table, derr))
		}
	}()
	if err := load(ctx, store, docs); err != nil {
		return nil, nil, err
	}
	sizes, err := sizer.StorageSizes(ctx, table, formatted == nil)
	if err != nil {
		return nil, nil, err
	}
	if sizes.Formatted == nil {
		sizes.Formatted = formatted
	}
	if len(sizes.Stored) != len(docs.Data) || len(sizes.Formatted) != len(docs.Data) {
		return nil, nil, fmt.Errorf("the server reports %d documents of the %d loaded", len(sizes.Stored), len(docs.Data))
	}
	name := c.Name
	if name == "" {
		name = "default"
	}
	f = figures(name, sizes, docs.TextSizes(), docs.Label)
	if rc, ok := store.(db.ReadCoster); ok {
		if f.KeyReads, err = keyReads(ctx, rc, table, sizes, docs); err != nil {
			return nil, nil, err
		}
	}
	return f, sizes.Formatted, nil
}

// keyReads reads one field of the median and of the largest document (by
// their size in the stored format) and reports what the server touched.
func keyReads(ctx context.Context, rc db.ReadCoster, table string, sizes *db.StorageSizes, docs *Docs) ([]KeyRead, error) {
	order := make([]int, len(sizes.Formatted))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes.Formatted[a], sizes.Formatted[b]) })
	var out []KeyRead
	for _, pick := range []struct {
		which string
		i     int
	}{{"median", order[(len(order)-1)/2]}, {"largest", order[len(order)-1]}} {
		field, ok := firstField(docs.Data[pick.i])
		if !ok || len(out) > 0 && out[0].Document == docs.Label(pick.i) {
			continue
		}
		buf, q, err := rc.ReadCost(ctx, table, Key(pick.i), field)
		if err != nil {
			return nil, err
		}
		kr := KeyRead{Document: docs.Label(pick.i), Which: pick.which, Bytes: sizes.Formatted[pick.i], Field: field, Buffers: buf, Query: q}
		if sizes.Place != nil {
			kr.Place = placeNames[sizes.Place[pick.i]]
		}
		out = append(out, kr)
	}
	return out, nil
}

// placeNames say the places of db.StorageSizes.Place.
var placeNames = map[byte]string{db.InLine: "in-line", db.CompressedInLine: "compressed in-line",
	db.OutOfLine: "out of line", db.Compressed: "compressed", db.PlaceUnknown: ""}

// firstField is the name of a document's first top-level field.
func firstField(doc []byte) (string, bool) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	t, err := dec.Token()
	name, ok := t.(string)
	return name, ok && err == nil
}

// batch is how many documents one batch insert carries.
const batch = 500

// loaders is how many sessions load at once: a server parses and
// compresses the documents on one CPU per session.
var loaders = min(runtime.NumCPU(), 4)

// load inserts the documents under keys in document order, batches taken
// in turn by loaders sessions, in batches when the session can.
func load(ctx context.Context, store db.Store, docs *Docs) error {
	keys := make([][]byte, len(docs.Data))
	for i := range keys {
		keys[i] = Key(i)
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, loaders)
	for w := range loaders {
		sess, err := store.NewSession(ctx)
		if err != nil {
			next.Store(int64(len(keys))) // the others stop
			wg.Wait()
			return err
		}
		wg.Go(func() {
			defer sess.Close()
			for {
				lo := int(next.Add(batch)) - batch
				if lo >= len(keys) {
					return
				}
				if errs[w] = loadBatch(ctx, sess, docs, keys, lo, min(lo+batch, len(keys))); errs[w] != nil {
					next.Store(int64(len(keys)))
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// loadBatch inserts documents lo to hi-1. A batch the server refuses is
// inserted again one document at a time, to name the first it refuses.
func loadBatch(ctx context.Context, sess db.Session, docs *Docs, keys [][]byte, lo, hi int) error {
	if bi, ok := sess.(db.BatchInserter); ok {
		err := bi.InsertBatch(ctx, keys[lo:hi], docs.Data[lo:hi])
		if err == nil || ctx.Err() != nil {
			return err
		}
		if retried, rerr := oneByOne(ctx, sess, docs, keys, lo, hi); retried {
			return rerr // nil: each document alone loaded
		}
		return fmt.Errorf("loading %s to %s: %w", docs.Label(lo), docs.Label(hi-1), err)
	}
	for i := lo; i < hi; i++ {
		if err := sess.Insert(ctx, keys[i], docs.Data[i]); err != nil {
			return fmt.Errorf("loading %s: %w", docs.Label(i), err)
		}
	}
	return nil
}

// oneByOne inserts documents lo to hi-1 one at a time, after deleting
// those a failed batch left (a server may keep the documents before the
// one it refused), and returns the first insert's error naming its
// document: *BadInput when another of them loads, the document's fault
// rather than the server's. Without retried, the deletes failed: the
// batch's own error says more.
func oneByOne(ctx context.Context, sess db.Session, docs *Docs, keys [][]byte, lo, hi int) (retried bool, _ error) {
	for i := lo; i < hi; i++ {
		if err := sess.Delete(ctx, keys[i]); err != nil && !errors.Is(err, db.ErrNotFound) {
			return false, nil
		}
	}
	var refused error
	loaded := false
	for i := lo; i < hi && (refused == nil || !loaded); i++ {
		err := sess.Insert(ctx, keys[i], docs.Data[i])
		switch {
		case err == nil:
			loaded = true
		case refused == nil:
			refused = fmt.Errorf("loading %s: %w", docs.Label(i), err)
		}
	}
	if refused != nil && loaded {
		return true, &BadInput{Err: fmt.Errorf("%s: %w", docs.Source, refused)}
	}
	return true, refused
}

// Key is document i's key: its order is the documents' order.
func Key(i int) []byte { return fmt.Appendf(nil, "doc%09d", i) }
