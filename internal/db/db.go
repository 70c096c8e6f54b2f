// Package db defines the adapter boundary between docbench's runner and the
// databases it measures, and the registry backends add themselves to.
//
// A backend opens a Store for a target; every worker gets its own Session
// (own connection, own prepared statements). Core operations are the YCSB
// ones; document extensions are optional capability interfaces discovered by
// type assertion. An adapter knows nothing about workloads.
package db

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Backend describes one database backend.
type Backend struct {
	// Name is the short name shown by `docbench targets` (e.g. "postgres").
	Name string
	// Schemes are the target prefixes before ':' this backend answers
	// (e.g. "postgres", "postgresql").
	Schemes []string
	// Summary is a one-line description.
	Summary string
	// Forms lists target forms with a one-line explanation each.
	Forms []Form
	// Options are the properties the backend understands (layout=…, …).
	Options []Option
	// OptionPrefixes are property prefixes the backend understands (e.g. "server.").
	OptionPrefixes []string
	// Open connects to the target. It must not create tables: Setup does.
	Open func(ctx context.Context, cfg OpenRequest) (Store, error)
	// Audit classifies a target of this backend for the fairness audit
	// from the settings and layout its Info recorded (Classify calls it,
	// on results of any age). nil: nothing is known (NewAudit).
	Audit func(settings, layout map[string]string) Audit
	// Local says whether target names a server docbench starts on its own
	// machine, or an engine inside docbench: in a distributed run it would
	// run inside each pod. nil: never.
	Local func(target string) bool
	// Ephemeral says whether the server of target (opened with props) is
	// a throwaway one, fresh and empty whenever it is opened, its data gone
	// when it stops. nil: never.
	Ephemeral func(target string, props map[string]string) bool
	// CheckTarget reports, without touching the target, what is wrong with
	// the target string itself or the properties choosing its server (a
	// version docbench does not know). nil: nothing beyond the scheme.
	CheckTarget func(target string, props map[string]string) error
	// InDir returns target with a relative file it names placed in dir
	// (a study keeps such files in its directory). nil: the target names
	// no file.
	InDir func(target, dir string) string
	// DataDir is the directory whose file system holds the data of target
	// (opened with props) when it lives on this machine — a file, a server
	// docbench starts — and whether that server also keeps a write-ahead
	// log beside it (a study's disk estimate). nil or "": not this
	// machine's disk.
	DataDir func(target string, props map[string]string) (dir string, wal bool)
}

// Form is one accepted target form, e.g. "sqlite:PATH".
type Form struct{ Form, Help string }

// Option is a backend property with its allowed values.
type Option struct {
	Name    string
	Values  []string // empty: free-form
	Default string
	Help    string
}

// OpenRequest is what a backend needs to open a store.
type OpenRequest struct {
	// Target is the target string as the user gave it.
	Target string
	// Props are all workload properties (backends read their own options).
	Props map[string]string
	// Threads is the number of sessions the runner will open.
	Threads int
	// Log receives one-line progress messages (may be nil).
	Log func(format string, args ...any)
	// Existing says the phase needs data already loaded (run, verify): a
	// backend that would create a database file to open it refuses instead,
	// with ErrNoTable.
	Existing bool
}

// Prop returns the property value or def.
func (c OpenRequest) Prop(name, def string) string {
	if v, ok := c.Props[name]; ok && v != "" {
		return v
	}
	return def
}

// Logf logs when a logger is configured.
func (c OpenRequest) Logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(format, args...)
	}
}

// Schema describes the table a workload uses.
type Schema struct {
	Table  string
	Fields []string // top-level field names of the documents, in order
	// Indexes are the secondary indexes to create (secondaryindex=…).
	Indexes []Index
	// Columns describes the top-level fields with their JSON types, for
	// layouts that give each field a column (PostgreSQL layout=relational).
	// Empty: every field of Fields is a string.
	Columns []Column
	// Mark is recorded on the table when Setup creates it; Setup drops an
	// existing table only when it carries a mark (ErrNotOurs otherwise).
	Mark Mark
}

// Column is a top-level document field and its JSON type.
type Column struct {
	Name string
	// Type is the JSON type: string, integer, number, boolean, object,
	// array (or null when unknown).
	Type string
	// Items is the JSON type of an array's elements.
	Items string
	// Members are the fields of the elements of an array of objects.
	Members []Column
}

// Index is a secondary index on a document path.
type Index struct {
	// Path is a dotted path into the document ("address.zip", "tags").
	Path string
	// Array marks a path holding an array whose elements are searched, or
	// a path inside the elements of an array (GIN on PostgreSQL, multikey on
	// MongoDB, multi-valued on MySQL 8).
	Array bool
	// ArrayRoot is the array holding Path's values when Path runs inside
	// array elements ("tags" for "tags.term"); empty otherwise.
	ArrayRoot string
}

// Store is an opened target.
type Store interface {
	// Setup creates the table and marks it as docbench's (Schema.Mark).
	// With recreate it first drops an existing table that carries docbench's
	// mark, logging db.Replacing, and refuses one that does not (*ErrNotOurs);
	// it drops nothing else (no CASCADE).
	Setup(ctx context.Context, s Schema, recreate bool) error
	// NewSession opens a per-worker session.
	NewSession(ctx context.Context) (Session, error)
	// Info reports server version and the settings that decide results.
	Info(ctx context.Context) (Info, error)
	// Close releases the store (and stops a managed server).
	Close() error
}

// ThreadHolder is a Store whose sessions, as configured, hold their
// goroutine's thread and its P while they wait for the server (blocking
// system calls: netio.BlockingConn). The runner gives each worker a P.
type ThreadHolder interface {
	HoldsThreads() bool
}

// ThreadSizer is a Store whose connections depend on the number of
// sessions a phase opens (the I/O mode of its sessions, a pool's size).
// The runner calls SetThreads with each phase's thread count before it
// opens the phase's sessions, so that a store opened once for many phases
// (a study's points sweeping threads) serves each as if opened for it.
type ThreadSizer interface {
	SetThreads(ctx context.Context, threads int) error
}

// IOModer is a Session that says how its connection waits for the server
// (netio's modes: blocking, poller, net): what ran, recorded with the
// phase.
type IOModer interface {
	IOMode() string
}

// StatsFlusher is a Session whose server takes its counters late
// (PostgreSQL: a backend reports them at most once a second, or twice a
// second before 15, and not while idle). After the warm-up the runner
// calls FlushStats on every session, at once, before the measured part's
// server figures are taken: the warm-up's operations are then counted in
// the warm-up, not in the measured part.
type StatsFlusher interface {
	FlushStats(ctx context.Context) error
}

// Settler is a Store that brings the loaded table to the steady state a
// run expects (PostgreSQL: VACUUM (ANALYZE)), as pgbench's initialization
// does. The load phase calls it once, after taking its own figures; a run
// calls it before its warm-up, and the store decides (by its properties)
// whether to act then. what says what was done, "" when nothing was.
type Settler interface {
	Settle(ctx context.Context, when SettleStage) (what string, err error)
}

// SettleStage says when a Settler is called.
type SettleStage int

const (
	// AfterLoad is once, after a complete load's figures were taken.
	AfterLoad SettleStage = iota
	// BeforeRun is before a run's warm-up, outside its figures.
	BeforeRun
)

// Info describes the server behind a target.
type Info struct {
	Backend  string            `json:"backend"`
	Version  string            `json:"version,omitempty"`
	Settings map[string]string `json:"settings,omitempty"`
	Layout   map[string]string `json:"layout,omitempty"`
}

// Session executes operations for one worker. Implementations are not safe
// for concurrent use. Byte slices passed in are only valid during the call.
type Session interface {
	// Insert stores one document under key.
	Insert(ctx context.Context, key, doc []byte) error
	// Read fetches a document and appends it to dst as a JSON object. With
	// fields non-nil it reads only those: each is a dotted path ("field3",
	// "address.zip"), and the object read maps each path, as given, to its
	// value (absent paths are left out).
	Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error)
	// Update changes a document as u says; ErrNotFound when key is absent.
	Update(ctx context.Context, key []byte, u *Update) error
	// Scan reads up to count documents with key >= start in key order (only
	// fields when non-nil, as Read) and returns how many were read.
	Scan(ctx context.Context, start []byte, count int, fields []string) (int, error)
	// Delete removes a document.
	Delete(ctx context.Context, key []byte) error
	// Close releases the session.
	Close() error
}

// UpdateMode says how an update writes.
type UpdateMode uint8

const (
	// Merge sets each top-level member of Update.Doc, replacing its value
	// whole (a null stays a null member), and keeps the other members:
	// PostgreSQL data || $1, the seeds' YCSB statement; YCSB's update.
	// Update.Paths and Update.Values list the same members (names and JSON
	// values) for backends whose own merge differs (RFC 7396 patches drop
	// nulls and merge nested objects): they set each one instead.
	Merge UpdateMode = iota
	// Partial sets each of Update.Paths to the matching Update.Values in
	// place (jsonb_set, JSON_SET, $set, json_set).
	Partial
	// Replace writes Update.Doc as the whole document.
	Replace
)

// String returns the property value naming the mode.
func (m UpdateMode) String() string {
	switch m {
	case Merge:
		return "merge"
	case Partial:
		return "partial"
	case Replace:
		return "replace"
	}
	return fmt.Sprintf("UpdateMode(%d)", int(m))
}

// Update describes one update. The runner reuses it: adapters must not keep
// it after the call.
type Update struct {
	Mode   UpdateMode
	Doc    []byte   // Merge and Replace: a JSON object
	Paths  []string // Partial: dotted paths; Merge: Doc's top-level members
	Values [][]byte // Partial and Merge: one JSON value per path
}

// BatchInserter is implemented by sessions that load many documents at once
// (COPY, multi-row INSERT, insertMany).
type BatchInserter interface {
	InsertBatch(ctx context.Context, keys, docs [][]byte) error
}

// ErrNotFound is returned by Read and Update when the key does not exist.
var ErrNotFound = errors.New("record not found")

// ErrNoTable is wrapped by a backend's error when the target holds no table
// (or collection, or database file) of docbench's: it was never loaded.
var ErrNoTable = errors.New("the target holds no docbench table")

var (
	mu       sync.RWMutex
	backends = map[string]*Backend{}
	schemes  = map[string]*Backend{}
)

// Register adds a backend; it panics on a duplicate name or scheme.
func Register(b Backend) {
	mu.Lock()
	defer mu.Unlock()
	if _, dup := backends[b.Name]; dup {
		panic("db: duplicate backend " + b.Name)
	}
	bp := &b
	backends[b.Name] = bp
	for _, s := range b.Schemes {
		if _, dup := schemes[s]; dup {
			panic("db: duplicate scheme " + s)
		}
		schemes[s] = bp
	}
}

// Backends returns the registered backends sorted by name.
func Backends() []*Backend {
	mu.RLock()
	defer mu.RUnlock()
	out := make([]*Backend, 0, len(backends))
	for _, b := range backends {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Lookup finds the backend for a target string such as "sqlite:/tmp/x.db".
func Lookup(target string) (*Backend, error) {
	scheme, _, ok := strings.Cut(target, ":")
	if !ok || scheme == "" {
		return nil, fmt.Errorf("target %q: want SCHEME:… (see `docbench targets`)", target)
	}
	mu.RLock()
	defer mu.RUnlock()
	if b, ok := schemes[strings.ToLower(scheme)]; ok {
		return b, nil
	}
	known := make([]string, 0, len(schemes))
	for s := range schemes {
		known = append(known, s+":")
	}
	slices.Sort(known)
	return nil, fmt.Errorf("target %q: unknown backend %q (known: %s)", target, scheme, strings.Join(known, ", "))
}

// IsLocal reports whether target runs on docbench's own machine
// (Backend.Local); false for a target of no known backend.
func IsLocal(target string) bool {
	b, err := Lookup(target)
	return err == nil && b.Local != nil && b.Local(target)
}

// IsEphemeral reports whether target, opened with props, is a throwaway
// server (Backend.Ephemeral); false for a target of no known backend.
func IsEphemeral(target string, props map[string]string) bool {
	b, err := Lookup(target)
	return err == nil && b.Ephemeral != nil && b.Ephemeral(target, props)
}

// DataDirOf is Backend.DataDir of target: "" for a target of no known
// backend, or whose data is not on this machine's disk.
func DataDirOf(target string, props map[string]string) (dir string, wal bool) {
	b, err := Lookup(target)
	if err != nil || b.DataDir == nil {
		return "", false
	}
	return b.DataDir(target, props)
}

// TargetInDir returns target with a relative file it names placed in dir
// (Backend.InDir); other targets as they are.
func TargetInDir(target, dir string) string {
	b, err := Lookup(target)
	if err != nil || b.InDir == nil {
		return target
	}
	return b.InDir(target, dir)
}

// Open looks up the backend for cfg.Target and opens it. A property that
// only other backends understand, set to something else than their default,
// is an error: a capability the target lacks is never silently ignored.
func Open(ctx context.Context, cfg OpenRequest) (Store, error) {
	b, err := check(cfg.Target, cfg.Props)
	if err != nil {
		return nil, err
	}
	return b.Open(ctx, cfg)
}

// Check reports, without touching the target, what Open would refuse
// before connecting: an unknown backend, or properties the backend cannot
// honour. Callers validate with it before any work starts.
func Check(target string, props map[string]string) error {
	_, err := check(target, props)
	return err
}

func check(target string, props map[string]string) (*Backend, error) {
	b, err := Lookup(target)
	if err != nil {
		return nil, err
	}
	if err := foreignOptions(b, props); err != nil {
		return nil, err
	}
	if b.CheckTarget != nil {
		if err := b.CheckTarget(target, props); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// foreignOptions reports values b's own options do not allow, and
// properties of other backends that b does not have.
func foreignOptions(b *Backend, props map[string]string) error {
	own := map[string]bool{}
	var errs []error
	for _, o := range b.Options {
		own[o.Name] = true
		if v, set := props[o.Name]; set && v != "" && len(o.Values) > 0 && !slices.Contains(o.Values, v) {
			errs = append(errs, fmt.Errorf("property %s=%s: %s accepts %s", o.Name, v, b.Name, strings.Join(o.Values, ", ")))
		}
	}
	for _, other := range Backends() {
		if other.Name == b.Name {
			continue
		}
		for _, o := range other.Options {
			v, set := props[o.Name]
			if !set || own[o.Name] || v == o.Default || v == "" {
				continue
			}
			errs = append(errs, &ErrNotSupported{Backend: b.Name,
				What: fmt.Sprintf("property %s=%s (an option of %s)", o.Name, v, other.Name)})
			own[o.Name] = true // once per property
		}
		for _, prefix := range other.OptionPrefixes {
			if slices.Contains(b.OptionPrefixes, prefix) {
				continue
			}
			for k, v := range props {
				if strings.HasPrefix(k, prefix) && !own[k] {
					errs = append(errs, &ErrNotSupported{Backend: b.Name,
						What: fmt.Sprintf("property %s=%s (%s… configures %s)", k, v, prefix, other.Name)})
					own[k] = true
				}
			}
		}
	}
	return errors.Join(errs...)
}

// Known returns every property name and prefix that some backend understands,
// so that property validation can accept them.
func Known() (keys, prefixes []string) {
	for _, b := range Backends() {
		for _, o := range b.Options {
			keys = append(keys, o.Name)
		}
		prefixes = append(prefixes, b.OptionPrefixes...)
	}
	return keys, prefixes
}

// Redact hides every password in a target or in any text that may quote
// one (an error message, a result file): the password of a URL's userinfo
// (postgres://u:***@h, mongodb://u:***@h1,h2, mysql://u:***@h), password=,
// sslpassword= and similar parameters of a URL query or a key=value DSN
// (quoted or not), and the password of a Go MySQL DSN (u:***@tcp(h:3306)/db).
func Redact(text string) string {
	if !strings.ContainsAny(text, ":=") {
		return text
	}
	text = urlUserinfo.ReplaceAllString(text, "${1}:***@")
	text = mysqlDSN.ReplaceAllString(text, "${1}${2}:***@${3}")
	return secretParam.ReplaceAllString(text, "${1}=***")
}

var (
	// scheme://user:password@ — the password runs to the last @ before
	// the end of the authority (it may itself hold an @).
	urlUserinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^\s:/@?#"'<>]*):[^\s/?#"']*@`)
	// user:password@tcp(…), @unix(…), @/db — Go MySQL DSNs, no scheme.
	mysqlDSN = regexp.MustCompile(`(^|[\s"'=(,;])([^\s:@/"'()=,;]+):[^\s"']*@(tcp\(|tcp6\(|unix\(|udp\(|/)`)
	// password=…, sslpassword=…, pwd=… in a query or a key=value DSN; a
	// quoted value may hold spaces. authMechanismProperties may carry an
	// AWS session token.
	secretParam = regexp.MustCompile(`(?i)\b((?:ssl)?password|passwd|pwd|pass|authMechanismProperties|sslkeypassword)\s*=\s*(?:'(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&;"'\\,)]*)`)
)

// PathSegments splits a dotted document path ("address.prev_address.zip").
func PathSegments(path string) []string { return strings.Split(path, ".") }
