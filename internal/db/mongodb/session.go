package mongodb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/docbench/docbench/internal/db"
)

// session is one worker's view of the collection. The driver's client (and
// its connection pool) is shared; what is per session are the buffers every
// operation encodes its BSON into, and the options built once.
type session struct {
	coll *mongo.Collection

	filter []byte // the operation's filter
	doc    []byte // the document or update
	sort   []byte // sort specification
	path   []byte // contains: the dotted path being built
	base   int    // contains: where the path starts in path ($elemMatch is relative)
	arena  []byte // InsertBatch: all documents, back to back
	ends   []int  // InsertBatch: end offset of each document in arena
	batch  []any  // InsertBatch: the documents as bson.Raw

	projs      []*projection // projections seen, most recent last
	idSort     bson.Raw      // {_id: 1}
	insertMany *options.InsertManyOptionsBuilder
}

// projection is a prepared read of some dotted paths.
type projection struct {
	fields  []string   // as given
	segs    [][]string // their segments
	raw     bson.Raw   // {path: 1, …, _id: 0}
	findOne *options.FindOneOptionsBuilder
}

// maxProjections bounds the projection cache (workloads use a handful).
const maxProjections = 32

var (
	_ db.Session       = (*session)(nil)
	_ db.BatchInserter = (*session)(nil)
	_ db.Querier       = (*session)(nil)
)

func newSession(coll *mongo.Collection) *session {
	s := &session{coll: coll, insertMany: options.InsertMany().SetOrdered(false)}
	start, d := docStart(nil)
	d = appendInt32Element(d, "_id", 1)
	s.idSort = bson.Raw(docEnd(d, start))
	return s
}

// keyFilter builds {_id: key} into s.filter.
func (s *session) keyFilter(key []byte) bson.Raw {
	start, d := docStart(s.filter[:0])
	d = appendStringElement(d, "_id", key)
	s.filter = docEnd(d, start)
	return s.filter
}

// projectionFor returns the prepared projection of fields.
func (s *session) projectionFor(fields []string) *projection {
	for i := len(s.projs) - 1; i >= 0; i-- {
		if slices.Equal(s.projs[i].fields, fields) {
			return s.projs[i]
		}
	}
	p := &projection{fields: slices.Clone(fields)}
	for _, f := range fields {
		p.segs = append(p.segs, db.PathSegments(f))
	}
	start, d := docStart(nil)
	hasID := false
	for _, f := range projectedPaths(fields) {
		d = appendInt32Element(d, f, 1)
		hasID = hasID || f == "_id"
	}
	if !hasID {
		d = appendInt32Element(d, "_id", 0)
	}
	p.raw = bson.Raw(docEnd(d, start))
	p.findOne = options.FindOne().SetProjection(p.raw)
	if len(s.projs) == maxProjections {
		s.projs = s.projs[1:]
	}
	s.projs = append(s.projs, p)
	return p
}

// projectedPaths returns the paths the server projects for fields: a path
// is cut before its first numeric segment (a find projection cannot pick an
// array element: "orders.0.sku" projects sku of every element, so docbench
// projects "orders" and picks element 0 itself), and paths inside another
// projected path are left out (MongoDB refuses such "path collisions").
func projectedPaths(fields []string) []string {
	var out []string
	for _, f := range fields {
		segs := db.PathSegments(f)
		for i := 1; i < len(segs); i++ {
			if isIndex(segs[i]) {
				f = strings.Join(segs[:i], ".")
				break
			}
		}
		out = append(out, f)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	var kept []string
outer:
	for _, p := range out {
		for _, q := range kept { // sorted: a path's prefixes come before it
			if strings.HasPrefix(p, q+".") {
				continue outer
			}
		}
		kept = append(kept, p)
	}
	return kept
}

func isIndex(seg string) bool {
	if seg == "" {
		return false
	}
	for _, c := range seg {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// appendProjected writes the object {"path": value, …} of the paths of p
// found in doc.
func appendProjected(dst, doc []byte, p *projection) ([]byte, error) {
	dst = append(dst, '{')
	first := true
	for i, f := range p.fields {
		typ, v, ok := lookup(doc, p.segs[i])
		if !ok {
			continue
		}
		if !first {
			dst = append(dst, ',')
		}
		first = false
		dst = appendJSONString(dst, f)
		dst = append(dst, ':')
		var err error
		if dst, err = appendValueJSON(dst, typ, v); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendDocument builds {_id: key, …doc's members} into dst.
func appendDocument(dst, key, doc []byte) ([]byte, error) {
	start, d := docStart(dst)
	d = appendStringElement(d, "_id", key)
	d, err := appendJSONMembers(d, doc)
	if err != nil {
		return dst, err
	}
	return docEnd(d, start), nil
}

func (s *session) Insert(ctx context.Context, key, doc []byte) error {
	d, err := appendDocument(s.doc[:0], key, doc)
	if err != nil {
		return fmt.Errorf("mongodb insert %s: %w", key, err)
	}
	s.doc = d
	if _, err := s.coll.InsertOne(ctx, bson.Raw(d)); err != nil {
		return fmt.Errorf("mongodb insert %s: %w", key, err)
	}
	return nil
}

// InsertBatch loads with one unordered insertMany.
func (s *session) InsertBatch(ctx context.Context, keys, docs [][]byte) error {
	s.arena, s.ends = s.arena[:0], s.ends[:0]
	for i := range keys {
		d, err := appendDocument(s.arena, keys[i], docs[i])
		if err != nil {
			return fmt.Errorf("mongodb insert %s: %w", keys[i], err)
		}
		s.arena = d
		s.ends = append(s.ends, len(d))
	}
	s.batch = s.batch[:0]
	prev := 0
	for _, end := range s.ends {
		s.batch = append(s.batch, bson.Raw(s.arena[prev:end:end]))
		prev = end
	}
	_, err := s.coll.InsertMany(ctx, s.batch, s.insertMany)
	clear(s.batch)
	if err != nil {
		return fmt.Errorf("mongodb insertMany (%d documents): %w", len(keys), err)
	}
	return nil
}

func (s *session) Read(ctx context.Context, key []byte, fields []string, dst []byte) ([]byte, error) {
	filter := s.keyFilter(key)
	var res *mongo.SingleResult
	var p *projection
	if fields == nil {
		res = s.coll.FindOne(ctx, filter)
	} else {
		p = s.projectionFor(fields)
		res = s.coll.FindOne(ctx, filter, p.findOne)
	}
	raw, err := res.Raw()
	if errors.Is(err, mongo.ErrNoDocuments) {
		return dst, db.ErrNotFound
	}
	if err != nil {
		return dst, fmt.Errorf("mongodb read %s: %w", key, err)
	}
	n := len(dst)
	if p == nil {
		dst, err = appendDocJSON(dst, raw, "_id")
	} else {
		dst, err = appendProjected(dst, raw, p)
	}
	if err != nil {
		return dst[:n], fmt.Errorf("mongodb read %s: %w", key, err)
	}
	return dst, nil
}

// Update: Merge is {$set: doc} (each top-level member replaced, the others
// kept), Partial {$set: {path: value, …}}, Replace replaceOne.
func (s *session) Update(ctx context.Context, key []byte, u *db.Update) error {
	filter := s.keyFilter(key)
	doc, err := appendUpdate(s.doc[:0], u)
	if err != nil {
		return fmt.Errorf("mongodb update %s: %w", key, err)
	}
	s.doc = doc
	var res *mongo.UpdateResult
	if u.Mode == db.Replace {
		res, err = s.coll.ReplaceOne(ctx, filter, bson.Raw(s.doc))
	} else {
		res, err = s.coll.UpdateOne(ctx, filter, bson.Raw(s.doc))
	}
	if err != nil {
		return fmt.Errorf("mongodb update %s: %w", key, err)
	}
	if res.Acknowledged && res.MatchedCount == 0 { // w=0 reports nothing
		return db.ErrNotFound
	}
	return nil
}

// appendUpdate appends the update (or replacement) document of u as BSON.
func appendUpdate(dst []byte, u *db.Update) ([]byte, error) {
	start, d := docStart(dst)
	var err error
	switch u.Mode {
	case db.Merge:
		d = append(d, bsonDocument)
		d = appendCString(d, "$set")
		d, err = appendJSONDocument(d, u.Doc)
	case db.Partial:
		if len(u.Paths) != len(u.Values) {
			return dst, fmt.Errorf("%d paths, %d values", len(u.Paths), len(u.Values))
		}
		d = append(d, bsonDocument)
		d = appendCString(d, "$set")
		set, dd := docStart(d)
		d = dd
		for i, path := range u.Paths {
			if d, err = appendJSONElement(d, path, u.Values[i]); err != nil {
				break
			}
		}
		d = docEnd(d, set)
	case db.Replace:
		d, err = appendJSONMembers(d, u.Doc)
	default:
		return dst, fmt.Errorf("update mode %v", u.Mode)
	}
	if err != nil {
		return dst, err
	}
	return docEnd(d, start), nil
}

// Scan is find {_id: {$gte: start}} sorted by _id, limited to count, in
// one batch.
func (s *session) Scan(ctx context.Context, start []byte, count int, fields []string) (int, error) {
	if count <= 0 {
		return 0, nil
	}
	fs, d := docStart(s.filter[:0])
	d = append(d, bsonDocument)
	d = appendCString(d, "_id")
	gte, d := docStart(d)
	d = appendStringElement(d, "$gte", start)
	d = docEnd(d, gte)
	s.filter = docEnd(d, fs)
	o := options.Find().SetSort(s.idSort).SetLimit(int64(count)).SetBatchSize(int32(min(count, math.MaxInt32)))
	if fields != nil {
		o.SetProjection(s.projectionFor(fields).raw)
	}
	cur, err := s.coll.Find(ctx, bson.Raw(s.filter), o)
	if err != nil {
		return 0, fmt.Errorf("mongodb scan from %s: %w", start, err)
	}
	n, err := drain(ctx, cur)
	if err != nil {
		return n, fmt.Errorf("mongodb scan from %s: %w", start, err)
	}
	return n, nil
}

// drain reads a cursor to its end and closes it.
func drain(ctx context.Context, cur *mongo.Cursor) (int, error) {
	return drainKeys(ctx, cur, nil)
}

// drainKeys is drain appending each document's _id to keys when not nil.
func drainKeys(ctx context.Context, cur *mongo.Cursor, keys *[]string) (int, error) {
	n := 0
	for cur.Next(ctx) {
		if keys != nil {
			id, _ := cur.Current.Lookup("_id").StringValueOK()
			*keys = append(*keys, id)
		}
		n++
	}
	err := cur.Err()
	if cerr := cur.Close(ctx); err == nil {
		err = cerr
	}
	return n, err
}

func (s *session) Delete(ctx context.Context, key []byte) error {
	res, err := s.coll.DeleteOne(ctx, s.keyFilter(key))
	if err != nil {
		return fmt.Errorf("mongodb delete %s: %w", key, err)
	}
	if res.Acknowledged && res.DeletedCount == 0 {
		return db.ErrNotFound
	}
	return nil
}

func (s *session) Close() error { return nil }

// Query runs a secondary query:
//
//	field     {path: value}
//	contains  the fragment at path as conditions: dotted equality for
//	          members of objects, $elemMatch for objects in arrays
//	array     {path: element} (equality on an array matches an element)
//	range     {path: {$gte: value}} sorted by path
//	aggregate [{$group: {_id: "$path", value: {$avg|$sum: "$aggpath"}}}]
//	          (count: {$sum: 1})
//
// Find queries skip Offset and return at most Limit documents when those are
// set. It returns the number of documents (or groups) produced.
func (s *session) Query(ctx context.Context, q *db.Query) (int, error) {
	var err error
	o := options.Find()
	switch q.Kind {
	case db.QueryField, db.QueryArray:
		start, d := docStart(s.filter[:0])
		if d, err = appendJSONElement(d, q.Path, q.Value); err == nil {
			s.filter = docEnd(d, start)
		}
	case db.QueryContains:
		s.filter, err = s.containsFilter(s.filter[:0], q.Path, q.Value)
	case db.QueryRange:
		start, d := docStart(s.filter[:0])
		d = append(d, bsonDocument)
		d = appendCString(d, q.Path)
		gte, d := docStart(d)
		if d, err = appendJSONElement(d, "$gte", q.Value); err == nil {
			s.filter = docEnd(docEnd(d, gte), start)
		}
		start, d = docStart(s.sort[:0])
		s.sort = docEnd(appendInt32Element(d, q.Path, 1), start)
		o.SetSort(bson.Raw(s.sort))
	case db.QueryAggregate:
		return s.aggregate(ctx, q)
	case db.QueryDescendant:
		return 0, &db.ErrNotSupported{Backend: "mongodb", What: "querykind=descendant: MongoDB has no query for a key at any depth (no descendant operator); name the path with querykind=field"}
	default:
		return 0, &db.ErrNotSupported{Backend: "mongodb", What: "query kind " + q.Kind.String()}
	}
	if err != nil {
		return 0, fmt.Errorf("mongodb %s query on %s: %w", q.Kind, q.Path, err)
	}
	if q.Offset > 0 {
		o.SetSkip(int64(q.Offset))
	}
	if q.Limit > 0 {
		o.SetLimit(int64(q.Limit)).SetBatchSize(int32(min(q.Limit, math.MaxInt32)))
	}
	if q.Fields != nil && q.Keys != nil {
		o.SetProjection(s.projectionFor(append(slices.Clip(q.Fields), "_id")).raw)
	} else if q.Fields != nil {
		o.SetProjection(s.projectionFor(q.Fields).raw)
	}
	cur, err := s.coll.Find(ctx, bson.Raw(s.filter), o)
	if err != nil {
		return 0, fmt.Errorf("mongodb %s query on %s: %w", q.Kind, q.Path, err)
	}
	n, err := drainKeys(ctx, cur, q.Keys)
	if err != nil {
		return n, fmt.Errorf("mongodb %s query on %s: %w", q.Kind, q.Path, err)
	}
	return n, nil
}

func (s *session) aggregate(ctx context.Context, q *db.Query) (int, error) {
	// [{$group: {_id: "$path", value: {$op: "$aggpath" | 1}}}]
	arr, d := docStart(s.doc[:0])
	d = append(d, bsonDocument)
	d = appendCString(d, "0")
	stage, d := docStart(d)
	d = append(d, bsonDocument)
	d = appendCString(d, "$group")
	group, d := docStart(d)
	d = appendFieldRef(d, "_id", q.Path)
	d = append(d, bsonDocument)
	d = appendCString(d, "value")
	acc, d := docStart(d)
	switch q.Func {
	case "avg":
		d = appendFieldRef(d, "$avg", q.AggPath)
	case "sum":
		d = appendFieldRef(d, "$sum", q.AggPath)
	case "count":
		d = appendInt32Element(d, "$sum", 1)
	default:
		return 0, &db.ErrNotSupported{Backend: "mongodb", What: "aggregate function " + strconv.Quote(q.Func)}
	}
	d = docEnd(d, acc)
	d = docEnd(d, group)
	d = docEnd(d, stage)
	s.doc = docEnd(d, arr)
	cur, err := s.coll.Aggregate(ctx, bsoncore.Array(s.doc))
	if err != nil {
		return 0, fmt.Errorf("mongodb aggregate %s(%s) by %s: %w", q.Func, q.AggPath, q.Path, err)
	}
	n, err := drain(ctx, cur)
	if err != nil {
		return n, fmt.Errorf("mongodb aggregate %s(%s) by %s: %w", q.Func, q.AggPath, q.Path, err)
	}
	return n, nil
}

// appendFieldRef appends key: "$path".
func appendFieldRef(dst []byte, key, path string) []byte {
	dst = append(dst, bsonString)
	dst = appendCString(dst, key)
	dst = binary32(dst, len(path)+2)
	dst = append(dst, '$')
	dst = append(dst, path...)
	return append(dst, 0)
}
