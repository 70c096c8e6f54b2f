package study

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/engine"
)

// Rules of the estimate, stated with it: a target's data takes storeFactor
// times its documents' JSON (table, TOAST, indexes), a PostgreSQL server
// also twice that JSON of WAL, up to walAllowance (max_wal_size), and a
// load takes loadDocRate documents/s plus loadByteRate bytes/s of JSON:
// small documents go at a rate per document, large ones add their bytes
// (loads of PostgreSQL, MariaDB and SQLite on a 2-core machine: 4,200 to
// 5,800 documents/s of 0.4–1 kB, 1,200 to 4,400 of 19 kB).
const (
	storeFactor  = 2.5
	walAllowance = 1 << 30
	loadDocRate  = 5000
	loadByteRate = 32 << 20
)

// estimate is what a study will take: the disk each file system must hold
// at once (in each directory, the largest target's data: targets run in
// turn), and the time it runs.
type estimate struct {
	need  map[string]int64 // bytes by directory whose file system holds them
	what  map[string][]string
	time  time.Duration
	runs  int   // the runs of the study's rounds (studyRun.planned)
	bytes int64 // documents' JSON of the largest data set
	// searches is how many capacity searches the study runs, each at
	// most searchMax long (counted in time at that bound).
	searches  int
	searchMax time.Duration
	// added is the most the rounds added for claims can take (more.go),
	// up to max_rounds.
	added time.Duration
}

// estimate computes the study's needs.
func (r *studyRun) estimate() (*estimate, error) {
	docBytes := engine.DocBytes
	if r.opts.docBytes != nil {
		docBytes = r.opts.docBytes
	}
	f := r.f
	e := &estimate{need: map[string]int64{}, what: map[string][]string{}, runs: r.planned()}
	runs := time.Duration(e.runs) * (f.Warmup.D() + f.Duration.D())
	var loadBytes, loadDocs int64
	for _, t := range r.targets {
		groups, err := r.groups(t)
		if err != nil {
			return nil, err
		}
		dir, wal := dataDir(t, r.opts.Out)
		var peak, largest int64
		for _, pts := range groups {
			p, _, err := f.loadProps(t, pts[0])
			if err != nil {
				return nil, err
			}
			size, err := docBytes(p.Map())
			if err != nil {
				return nil, err
			}
			docs := int64(0)
			if v, ok := p.Get("recordcount"); ok {
				docs, _ = strconv.ParseInt(v, 10, 64)
			}
			b := int64(size * float64(docs))
			loads := int64(r.loadsPerGroup(t, pts[0]))
			loadBytes += b * loads
			loadDocs += docs * loads
			e.bytes = max(e.bytes, b)
			largest = max(largest, b)
			peak = max(peak, int64(storeFactor*float64(b)))
		}
		if wal {
			peak += min(2*largest, walAllowance) // WAL of the load, recycled past max_wal_size
		}
		if dir == "" {
			continue // a server docbench does not manage: its disk is its own
		}
		// Targets run in turn and a managed server's temporary cluster goes
		// with it: a directory holds the largest target's data at once.
		e.need[dir] = max(e.need[dir], peak)
		e.what[dir] = append(e.what[dir], t.Name)
	}
	e.time = runs + time.Duration((float64(loadDocs)/loadDocRate+float64(loadBytes)/loadByteRate)*float64(time.Second))
	for _, t := range r.targets {
		for _, pt := range r.sweep {
			for i := range f.Workloads {
				if f.capacityAt(t.Name, pt, i) {
					e.searches += f.Rounds
				}
			}
		}
	}
	if e.searches > 0 {
		cr, err := f.capacityRun()
		if err != nil {
			return nil, err
		}
		e.searchMax = cr.MaxTime
		e.time += time.Duration(e.searches) * cr.MaxTime
	}
	added, err := r.addedEstimate(func(t TargetSpec, pt []KV) (time.Duration, error) {
		p, _, err := f.loadProps(t, pt)
		if err != nil {
			return 0, err
		}
		size, err := docBytes(p.Map())
		if err != nil {
			return 0, err
		}
		docs := 0.0
		if v, ok := p.Get("recordcount"); ok {
			docs, _ = strconv.ParseFloat(v, 64)
		}
		return time.Duration((docs/loadDocRate + size*docs/loadByteRate) * float64(time.Second)), nil
	}, e.searchMax)
	if err != nil {
		return nil, err
	}
	e.added = added
	return e, nil
}

// loadsPerGroup is how many times target t's group at point pt loads:
// every round when a workload t runs inserts (rounds start from the same
// data), else once.
func (r *studyRun) loadsPerGroup(t TargetSpec, pt []KV) int {
	for i := range r.f.Workloads {
		if !r.f.runsOn(i, t.Name) {
			continue
		}
		p, _, err := r.f.props(t, &r.f.Workloads[i], pt, r.f.Source)
		if err != nil {
			continue
		}
		v, _ := p.Get("insertproportion")
		if x, _ := strconv.ParseFloat(v, 64); x > 0 {
			return r.f.Rounds
		}
	}
	return 1
}

// dataDir is the directory whose file system holds target t's data, and
// whether its server keeps a WAL there too (db.DataDirOf; a relative file
// lives in the study directory out); "" when not on this machine.
func dataDir(t TargetSpec, out string) (string, bool) {
	return db.DataDirOf(db.TargetInDir(t.Target, out), t.Properties)
}

// check prints the estimate and refuses, in one line, a study the disks
// cannot hold.
func (e *estimate) check(r *studyRun) error {
	if e == nil {
		return nil
	}
	type fsNeed struct {
		dir  string
		need int64
		what []string
		free int64
	}
	byFS := map[uint64]*fsNeed{}
	var order []uint64
	for dir, need := range e.need {
		d := existing(dir)
		dev, free, err := diskOf(d)
		if err != nil {
			return fmt.Errorf("disk space of %s: %w", d, err)
		}
		fs := byFS[dev]
		if fs == nil {
			fs = &fsNeed{dir: d, free: free}
			byFS[dev] = fs
			order = append(order, dev)
		}
		fs.need += need
		fs.what = append(fs.what, e.what[dir]...)
	}
	sort.Slice(order, func(i, j int) bool { return byFS[order[i]].dir < byFS[order[j]].dir })
	var parts []string
	var errs []error
	for _, dev := range order {
		fs := byFS[dev]
		sort.Strings(fs.what)
		parts = append(parts, fmt.Sprintf("%s on %s (%s free)", gib(fs.need), fs.dir, gib(fs.free)))
		if fs.need > fs.free {
			errs = append(errs, fmt.Errorf("study %s%s needs about %s on %s (the data of %s, one target at a time), which has %s free: free space or choose a smaller --scale",
				r.f.Name, scaleWords(r.f), gib(fs.need), fs.dir, strings.Join(fs.what, ", "), gib(fs.free)))
		}
	}
	searches := ""
	if e.searches > 0 {
		searches = fmt.Sprintf(" and %d capacity searches counted at their bound of %s", e.searches, e.searchMax)
	}
	added := ""
	if e.added > 0 {
		added = fmt.Sprintf(", and up to %s more if claims' spread asks for rounds up to max_rounds (%d)", roundTime(e.added), r.f.maxRounds())
	}
	r.logf("estimate: %s of documents in the largest data set; disk %s; about %s (%d runs of %s%s, loads at an assumed %d documents/s plus %d MB/s; %.1f× the documents' JSON per target, and 2× in WAL up to 1 GiB for PostgreSQL)%s",
		gib(e.bytes), strings.Join(parts, ", "), e.time.Round(time.Minute), e.runs, (r.f.Warmup.D() + r.f.Duration.D()), searches, loadDocRate, loadByteRate>>20, storeFactor, added)
	return errors.Join(errs...)
}

// roundTime rounds d to minutes, or to seconds under a minute.
func roundTime(d time.Duration) time.Duration {
	if d < time.Minute {
		return d.Round(time.Second)
	}
	return d.Round(time.Minute)
}

func scaleWords(f *File) string {
	if f.ScaleName == "" {
		return ""
	}
	return " --scale " + f.ScaleName
}

// existing returns dir or its nearest existing parent.
func existing(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			return d
		}
	}
}

func gib(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%d kiB", b>>10)
}
