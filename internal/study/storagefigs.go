package study

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/document"
	"github.com/docbench/docbench/internal/engine"
	"github.com/docbench/docbench/internal/storage"
	"github.com/docbench/docbench/internal/workload"
)

// storageFigures are `docbench storage`'s figures of the group's loaded
// table, as JSON for its load result; nil, with a line in the log, when
// the target cannot tell them.
func (g *group) storageFigures(ctx context.Context) json.RawMessage {
	fail := func(err error) json.RawMessage {
		g.logf("%s %s: storage figures: %s", g.t.Name, pointID(g.points[0]), oneLine(err))
		return nil
	}
	text, err := textSizes(g.loadProps)
	if err != nil {
		return fail(err)
	}
	b, err := db.Lookup(g.t.Target)
	if err != nil {
		return fail(err)
	}
	table, _ := g.loadProps.Get("table")
	f, err := storage.TableFigures(ctx, g.store, b.Name, table, text)
	if err != nil {
		return fail(err)
	}
	f.Queries = nil // the command the summary names shows them
	raw, err := json.Marshal(storage.Target{Target: db.Redact(g.t.Target), Backend: b.Name, Figures: *f})
	if err != nil {
		return fail(err)
	}
	return raw
}

// textSizes are the sizes as text of the documents a load with props
// inserts, generated as the load generates them.
func textSizes(props *workload.Properties) ([]int64, error) {
	cfg, err := engine.Config(props)
	if err != nil {
		return nil, err
	}
	wl, docOps, err := engine.Build(cfg, 1)
	if err != nil {
		return nil, err
	}
	th, r := wl.NewThread(0), document.NewRand()
	n := cfg.InsertCount
	if n <= 0 {
		n = cfg.EffectiveRecordCount() - cfg.InsertStart
	}
	out := make([]int64, 0, max(n, 0))
	var key, buf []byte
	for k := cfg.InsertStart; k < cfg.InsertStart+n; k++ {
		key = th.AppendKey(key[:0], k)
		buf = docOps.Shape.AppendDoc(buf[:0], key, k, r)
		out = append(out, int64(len(buf)))
	}
	return out, nil
}

// storageCommand is the `docbench storage` command that shows target t's
// documents: the workload and the study's properties of documents as run
// (m's scale profile or quick properties; no backend option, nothing only
// a run reads), a swept one as KEY=N.
func (f *File) storageCommand(t TargetSpec, m *Manifest) string {
	keys, prefixes := db.Known()
	props := map[string]string{}
	w := f.firstWorkload(t)
	var asRun map[string]string
	if m.Quick {
		asRun = f.Quick.Properties
	} else if m.Scale != "" {
		asRun = f.Scale[m.Scale].Properties
	}
	for _, m := range []map[string]string{f.Properties, asRun, w.Properties, t.Properties} {
		for k, v := range m {
			props[k] = v
		}
	}
	for _, s := range f.Sweep {
		props[s.Property] = "N"
	}
	cmd := "docbench storage -P " + w.Workload
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range props {
			if !yield(k) {
				return
			}
		}
	}) {
		if k == "table" || k == "threads" || k == "threadcount" || isRunOnly(k) || slices.Contains(keys, k) ||
			slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(k, p) }) {
			continue
		}
		cmd += fmt.Sprintf(" -p %s=%s", k, props[k])
	}
	return cmd + " -t " + db.Redact(t.Target)
}

// storageRows are the figures the study's loads recorded, a row per
// target and point in the order they ran: the point, the target, then
// storage.Figures.Cells. Results without them give none.
func (d *Data) storageRows() [][]string {
	var rows [][]string
	seen := map[string]bool{}
	for _, run := range d.Manifest.Runs {
		res := d.Results[run.File]
		k := run.Target + "\x00" + pointID(run.Point)
		if run.Workload != loadWorkload || res == nil || len(res.Storage) == 0 || seen[k] {
			continue
		}
		var t storage.Target
		if err := json.Unmarshal(res.Storage, &t); err != nil {
			continue // written by this code: unreadable only if edited
		}
		seen[k] = true
		rows = append(rows, append([]string{pointID(run.Point), run.Target}, t.Figures.Cells()...))
	}
	return rows
}

// storageCommands are the commands that show each target's documents,
// the targets that share one named together.
func (d *Data) storageCommands(rows [][]string) []string {
	var cmds []string
	names := map[string][]string{}
	for _, t := range d.File.Targets {
		if slices.ContainsFunc(rows, func(r []string) bool { return r[1] == t.Name }) {
			c := d.File.storageCommand(t, d.Manifest)
			if names[c] == nil {
				cmds = append(cmds, c)
			}
			names[c] = append(names[c], t.Name)
		}
	}
	out := make([]string, len(cmds))
	for i, c := range cmds {
		out[i] = strings.Join(names[c], ", ") + ": `" + c + "`"
	}
	return out
}

// storageIntro says where the storage figures come from.
const storageIntro = "The loaded documents as `docbench storage` measures them (medians per document; " +
	"compressed or out of line: PostgreSQL's TOAST). To see them for one point:"

// markdownStorage is summary.md's section of the storage figures.
func (d *Data) markdownStorage(b *bytes.Buffer) {
	rows := d.storageRows()
	if len(rows) == 0 {
		return
	}
	b.WriteString("## How the documents are stored\n\n" + storageIntro + "\n\n")
	for _, c := range d.storageCommands(rows) {
		b.WriteString("- " + c + "\n")
	}
	head := append([]string{"point", "target"}, storage.CellNames...)
	b.WriteString("\n| " + strings.Join(head, " | ") + " |\n|---|---|---|" + strings.Repeat("---:|", len(head)-3) + "\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	b.WriteString("\n")
}

// textStorage is summary.txt's section of the storage figures.
func (d *Data) textStorage(b *bytes.Buffer) {
	rows := d.storageRows()
	if len(rows) == 0 {
		return
	}
	b.WriteString("\nHow the documents are stored: " + strings.ReplaceAll(storageIntro, "`", "") + "\n")
	for _, c := range d.storageCommands(rows) {
		b.WriteString("  " + strings.ReplaceAll(c, "`", "") + "\n")
	}
	tw := tabwriter.NewWriter(b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, strings.Join(append([]string{"point", "target"}, storage.CellNames...), "\t")+"\t")
	for _, r := range rows {
		fmt.Fprintln(tw, strings.Join(r, "\t")+"\t")
	}
	tw.Flush()
}
