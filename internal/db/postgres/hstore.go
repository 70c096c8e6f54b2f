package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/docbench/docbench/internal/db"
)

// doctype=hstore: "jsonb vs hstore" of Bartunov and Panchenko, "NoSQL Postgres"
// (PGDay Saint Petersburg 2017). hstore is a flat
// map of text keys to text values (or NULL), so it holds flat documents only
// (YCSB's fieldN strings, document.shape=flat). Writes convert the JSON
// document to hstore's text form in Go (no server-side conversion is timed);
// reads return hstore_to_json(data), whose values are JSON strings.

// errHstoreShape names the property a non-flat document conflicts with.
const errHstoreShape = "doctype=hstore needs document.shape=flat (hstore is a flat map of text values)"

// errNoHstore says where hstore comes from when the server lacks it.
const errNoHstore = "doctype=hstore: the server has no hstore extension (it is in PostgreSQL's contrib: Debian's postgresql package, the embedded PostgreSQL 18): use doctype=jsonb"

// hstoreVariant checks the properties doctype=hstore can be combined with.
func hstoreVariant(v variant) []error {
	var errs []error
	if v.layout == "relational" {
		errs = append(errs, errors.New("property doctype=hstore: the document column of layout=column or layout=document; layout=relational has none"))
	}
	if v.layout == "document" {
		switch {
		case v.index == "gin_path_ops":
			errs = append(errs, errors.New("property index=gin_path_ops: jsonb_path_ops is a jsonb operator class; with doctype=hstore use index=gin (GIN gin_hstore_ops), btree or none"))
		case v.keylookup != "arrow" && v.keylookup != "contains":
			errs = append(errs, fmt.Errorf("property pg.keylookup=%s: with doctype=hstore the key lookup is arrow (data->'YCSB_KEY' = $1) or contains (data @> hstore('YCSB_KEY', $1))", v.keylookup))
		}
	}
	if v.pathop != "path" {
		errs = append(errs, fmt.Errorf("property pg.pathop=%s: doctype=hstore has no nested paths; its fields are read with data -> 'field'", v.pathop))
	}
	return errs
}

// hstoreSetup refuses documents that are not flat maps of strings and
// creates the extension.
func (s *store) hstoreSetup(ctx context.Context, sc db.Schema) error {
	for _, c := range sc.Columns {
		if c.Type != "string" {
			return fmt.Errorf("%s: field %s is %s", errHstoreShape, c.Name, jsonKind(c))
		}
	}
	return s.ensureExtension(ctx, "hstore", errNoHstore)
}

func jsonKind(c db.Column) string {
	switch {
	case c.Type == "array" && c.Items != "":
		return "an array of " + c.Items
	case c.Type == "array", c.Type == "object", c.Type == "integer":
		return "an " + c.Type
	}
	return "a " + c.Type
}

// hstoreKeyIndex is the layout=document key index of doctype=hstore.
func (s *store) hstoreKeyIndex(name func(string) string) []string {
	switch s.v.index {
	case "btree":
		return []string{"CREATE INDEX IF NOT EXISTS " + name("ycsb_key") + " ON " + s.table + " ((data -> 'YCSB_KEY'))"}
	case "gin":
		return []string{"CREATE INDEX IF NOT EXISTS " + name("gin") + " ON " + s.table + " USING gin (data gin_hstore_ops)"}
	}
	return nil
}

// hstoreIndexDDL is a secondary index: a btree on a field's text value.
func (s *store) hstoreIndexDDL(name string, ix db.Index) (string, error) {
	if ix.Array || strings.Contains(ix.Path, ".") {
		return "", fmt.Errorf("secondaryindex=%s: %s", ix.Path, errHstoreShape)
	}
	return "CREATE INDEX IF NOT EXISTS " + name + " ON " + s.table + " ((" + s.predExpr(ix.Path) + "))", nil
}

// hstoreKeyPred is keyPred for doctype=hstore.
func (s *store) hstoreKeyPred() (pred, order string) {
	switch {
	case s.v.layout != "document":
		return "ycsb_key = $1", "ycsb_key"
	case s.v.keylookup == "contains":
		return "data @> hstore('YCSB_KEY', $1::text)", "(data -> 'YCSB_KEY')"
	}
	return "(data -> 'YCSB_KEY') = $1", "(data -> 'YCSB_KEY')"
}

// hstoreDocExpr reads a whole document as JSON.
func (s *store) hstoreDocExpr() string {
	if s.v.layout == "document" {
		return "hstore_to_json(delete(data, 'YCSB_KEY'))"
	}
	return "hstore_to_json(data)"
}

// hstoreStatements adjusts the prepared statements of the column and
// document layouts: a merge is hstore concatenation.
func (s *store) hstoreStatements(stmts map[string]string, pred string) {
	stmts["merge"] = "UPDATE " + s.table + " SET data = data || $2::hstore WHERE " + pred
}

// hstorePartialSQL sets n fields: data || hstore(ARRAY[$2, $4…], ARRAY[$3, $5…]).
func (s *store) hstorePartialSQL(n int, pred string) string {
	var keys, vals []string
	for i := range n {
		keys = append(keys, fmt.Sprintf("$%d::text", 2+2*i))
		vals = append(vals, fmt.Sprintf("$%d::text", 3+2*i))
	}
	return "UPDATE " + s.table + " SET data = data || hstore(ARRAY[" + strings.Join(keys, ", ") + "], ARRAY[" +
		strings.Join(vals, ", ") + "]) WHERE " + pred
}

// hstoreQuerySQL is querySQL for doctype=hstore. Values arrive as JSON (as
// for every backend) and are turned to text by the statement: field and
// range compare text; contains builds the hstore the document must contain,
// from one field (path form) or from the whole fragment (document form).
func (s *store) hstoreQuerySQL(q *db.Query) (string, error) {
	sel := s.docExpr()
	if q.Fields != nil {
		sel = s.projectExpr(q.Fields)
	}
	from := " FROM " + s.table
	page := " LIMIT $2 OFFSET $3"
	text := "($1::jsonb #>> '{}')"
	if strings.Contains(q.Path, ".") {
		return "", fmt.Errorf("query.path=%s: %s", q.Path, errHstoreShape)
	}
	switch q.Kind {
	case db.QueryField:
		return "SELECT " + sel + from + " WHERE " + s.predExpr(q.Path) + " = " + text + page, nil
	case db.QueryContains:
		frag := "hstore(" + quoteLiteral(q.Path) + ", " + text + ")"
		if q.Path == "" {
			frag = "(SELECT coalesce(hstore(array_agg(key), array_agg(value)), ''::hstore) FROM jsonb_each_text($1::jsonb))"
		}
		return "SELECT " + sel + from + " WHERE data @> " + frag + page, nil
	case db.QueryRange:
		e := s.predExpr(q.Path)
		_, order := s.keyPred()
		return "SELECT " + sel + from + " WHERE " + e + " >= " + text + " ORDER BY " + e + ", " + order + page, nil
	case db.QueryAggregate:
		return s.aggregateSQL(q)
	}
	return "", &db.ErrNotSupported{Backend: "postgres doctype=hstore", What: "querykind=" + q.Kind.String() + " (hstore values are text: no arrays, no nesting)"}
}

// hstoreBuf holds a session's reused conversion buffers.
type hstoreBuf struct {
	doc    []byte   // a document in hstore text form
	vals   []byte   // partial update: keys and values as text, back to back
	params [][]byte // partial update parameters
	copy   []byte   // COPY text rows
}

// hstoreDoc converts a JSON document to hstore text, with YCSB_KEY first
// when the layout keeps the key inside.
func (s *session) hstoreDoc(key, doc []byte) ([]byte, error) {
	b := s.hs.doc[:0]
	if s.st.v.layout == "document" && key != nil {
		b = appendHstoreText(append(b, `"YCSB_KEY"=>`...), key)
		b = append(b, ", "...)
	}
	n := len(b)
	b, err := appendHstore(b, doc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", errHstoreShape, err)
	}
	if len(b) == n && n > 0 { // an empty document after the key
		b = b[:n-2]
	}
	s.hs.doc = b
	return b, nil
}

// hstoreInsert inserts one document.
func (s *session) hstoreInsert(ctx context.Context, key, doc []byte) error {
	h, err := s.hstoreDoc(key, doc)
	if err != nil {
		return err
	}
	if s.st.v.layout == "document" {
		_, err = s.execTag(ctx, "insert", h)
	} else {
		_, err = s.execTag(ctx, "insert", key, h)
	}
	return err
}

// hstoreInsertBatch loads documents with COPY … FROM STDIN in text format.
func (s *session) hstoreInsertBatch(ctx context.Context, keys, docs [][]byte) error {
	b := s.hs.copy[:0]
	doc := s.st.v.layout == "document"
	for i := range keys {
		if !doc {
			b = appendCopyText(b, keys[i])
			b = append(b, '\t')
		}
		h, err := s.hstoreDoc(keys[i], docs[i])
		if err != nil {
			return err
		}
		b = appendCopyText(b, h)
		b = append(b, '\n')
	}
	s.hs.copy = b
	cols := "(ycsb_key, data)"
	if doc {
		cols = "(data)"
	}
	_, err := s.pg.CopyFrom(ctx, bytes.NewReader(b), "COPY "+s.st.table+" "+cols+" FROM STDIN")
	return err
}

// hstoreUpdate runs a merge, replace or partial update.
func (s *session) hstoreUpdate(ctx context.Context, key []byte, u *db.Update) error {
	var err error
	var h []byte
	var stmt string
	switch u.Mode {
	case db.Merge:
		stmt = "merge"
		h, err = s.hstoreDoc(nil, u.Doc)
	case db.Replace:
		stmt = "replace"
		h, err = s.hstoreDoc(key, u.Doc)
	case db.Partial:
		return s.hstorePartial(ctx, key, u)
	default:
		return fmt.Errorf("postgres: update mode %v", u.Mode)
	}
	if err != nil {
		return err
	}
	rows, err := s.execTag(ctx, stmt, key, h)
	if err != nil {
		return err
	}
	if rows == 0 {
		return db.ErrNotFound
	}
	return nil
}

// hstorePartial sets the update's fields: data || hstore(keys, values).
func (s *session) hstorePartial(ctx context.Context, key []byte, u *db.Update) error {
	name, err := s.partialStmt(ctx, len(u.Paths))
	if err != nil {
		return err
	}
	// Keys and values go back to back into one buffer, sliced once it has
	// stopped growing; a JSON null becomes an SQL NULL value.
	b := s.hs.vals[:0]
	var offs [64]int
	if 2*len(u.Paths) > len(offs) {
		return fmt.Errorf("postgres doctype=hstore: a partial update of %d fields (at most %d)", len(u.Paths), len(offs)/2)
	}
	nulls := uint64(0)
	for i, p := range u.Paths {
		b = append(b, p...)
		offs[2*i] = len(b)
		v := jsonTrim(u.Values[i])
		if string(v) == "null" {
			nulls |= 1 << i
		} else if b, err = appendJSONText(b, v); err != nil {
			return fmt.Errorf("%s: field %s: %w", errHstoreShape, p, err)
		}
		offs[2*i+1] = len(b)
	}
	s.hs.vals = b
	params := append(s.hs.params[:0], key)
	start := 0
	for i := range 2 * len(u.Paths) {
		var v []byte
		if i%2 == 0 || nulls&(1<<(i/2)) == 0 {
			v = b[start:offs[i]:offs[i]]
		}
		params = append(params, v)
		start = offs[i]
	}
	s.hs.params = params
	rows, err := s.execTag(ctx, name, params...)
	if err != nil {
		return err
	}
	if rows == 0 {
		return db.ErrNotFound
	}
	return nil
}

// hstoreExplainArgs turns the JSON parameters Explain gives a statement into
// the hstore forms the statement takes.
func (s *session) hstoreExplainArgs(stmt string, args []any) []any {
	if s.st.v.doctype != "hstore" {
		return args
	}
	out := make([]any, len(args))
	copy(out, args)
	switch {
	case stmt == "insert" || stmt == "merge" || stmt == "replace":
		last := len(out) - 1
		if d, ok := out[last].([]byte); ok {
			if h, err := appendHstore(nil, d); err == nil {
				out[last] = h
			}
		}
	case strings.HasPrefix(stmt, "partial"):
		for i := 1; i < len(out); i++ {
			switch v := out[i].(type) {
			case []string:
				out[i] = strings.Join(v, ".")
			case []byte:
				if t, err := appendJSONText(nil, v); err == nil {
					out[i] = t
				}
			}
		}
	}
	return out
}

// appendHstore appends the hstore text form of a flat JSON object of strings
// (and nulls): {"a":"x","b":null} → "a"=>"x", "b"=>NULL.
func appendHstore(dst, doc []byte) ([]byte, error) {
	p := jsonTrim(doc)
	if len(p) < 2 || p[0] != '{' {
		return dst, errors.New("not a JSON object")
	}
	p = jsonTrim(p[1:])
	first := true
	for {
		if len(p) > 0 && p[0] == '}' {
			if len(jsonTrim(p[1:])) > 0 {
				return dst, errors.New("text after the JSON object")
			}
			return dst, nil
		}
		if !first {
			if len(p) == 0 || p[0] != ',' {
				return dst, errors.New("want , or } in the JSON object")
			}
			p = jsonTrim(p[1:])
			dst = append(dst, ", "...)
		}
		first = false
		str, rest, err := jsonString(p)
		if err != nil {
			return dst, fmt.Errorf("a key: %w", err)
		}
		dst = append(dst, '"')
		if dst, err = appendUnquoted(dst, str, true); err != nil {
			return dst, err
		}
		dst = append(dst, `"=>`...)
		p = jsonTrim(rest)
		if len(p) == 0 || p[0] != ':' {
			return dst, errors.New("want : after a key")
		}
		p = jsonTrim(p[1:])
		if bytes.HasPrefix(p, []byte("null")) {
			dst = append(dst, "NULL"...)
			p = jsonTrim(p[4:])
			continue
		}
		if str, rest, err = jsonString(p); err != nil {
			return dst, fmt.Errorf("a value: %w", err)
		}
		dst = append(dst, '"')
		if dst, err = appendUnquoted(dst, str, true); err != nil {
			return dst, err
		}
		dst = append(dst, '"')
		p = jsonTrim(rest)
	}
}

// appendJSONText appends the text of a JSON string (unquoted, unescaped).
func appendJSONText(dst, v []byte) ([]byte, error) {
	str, rest, err := jsonString(jsonTrim(v))
	if err != nil {
		return dst, err
	}
	if len(jsonTrim(rest)) > 0 {
		return dst, errors.New("text after the JSON string")
	}
	return appendUnquoted(dst, str, false)
}

// jsonString splits a leading JSON string (with its quotes) from p.
func jsonString(p []byte) (str, rest []byte, err error) {
	if len(p) == 0 || p[0] != '"' {
		if len(p) > 0 && (p[0] == '{' || p[0] == '[' || p[0] == '-' || p[0] >= '0' && p[0] <= '9' || p[0] == 't' || p[0] == 'f') {
			return nil, p, errors.New("hstore holds text: want a JSON string, not a number, boolean, object or array")
		}
		return nil, p, errors.New("want a JSON string")
	}
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '"':
			return p[:i+1], p[i+1:], nil
		}
	}
	return nil, p, errors.New("unterminated JSON string")
}

// appendUnquoted decodes a quoted JSON string onto dst; with hstore set it
// escapes " and \ for hstore's quoted form.
func appendUnquoted(dst, q []byte, hstore bool) ([]byte, error) {
	s := q[1 : len(q)-1]
	for i := 0; i < len(s); i++ {
		j := i // copy a run of plain bytes at once
		for j < len(s) && s[j] >= 0x20 && s[j] != '\\' && s[j] != '"' {
			j++
		}
		dst = append(dst, s[i:j]...)
		if i = j; i == len(s) {
			break
		}
		c := s[i]
		if c < 0x20 {
			return dst, errors.New("control character in a JSON string")
		}
		if c != '\\' {
			if hstore && c == '"' {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
			continue
		}
		i++
		if i >= len(s) {
			return dst, errors.New("bad escape in a JSON string")
		}
		var r rune
		switch s[i] {
		case '"', '\\', '/':
			r = rune(s[i])
		case 'b':
			r = '\b'
		case 'f':
			r = '\f'
		case 'n':
			r = '\n'
		case 'r':
			r = '\r'
		case 't':
			r = '\t'
		case 'u':
			var ok bool
			if r, ok = hex4(s[i+1:]); !ok {
				return dst, errors.New("bad \\u escape in a JSON string")
			}
			i += 4
			if utf16.IsSurrogate(r) && i+6 < len(s) && s[i+1] == '\\' && s[i+2] == 'u' {
				if r2, ok := hex4(s[i+3:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						r = d
						i += 6
					}
				}
			}
			if r == 0 {
				return dst, errors.New("\\u0000 in a JSON string: PostgreSQL text cannot hold it")
			}
		default:
			return dst, errors.New("bad escape in a JSON string")
		}
		if hstore && (r == '"' || r == '\\') {
			dst = append(dst, '\\')
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst, nil
}

func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		d := -1
		if c >= '0' { // c|0x20 folds A–F to a–f and leaves digits alone
			d = strings.IndexByte("0123456789abcdef", c|0x20)
		}
		if d < 0 {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

// appendHstoreText appends text as a quoted hstore string.
func appendHstoreText(dst, text []byte) []byte {
	dst = append(dst, '"')
	for _, c := range text {
		if c == '"' || c == '\\' {
			dst = append(dst, '\\')
		}
		dst = append(dst, c)
	}
	return append(dst, '"')
}

// appendCopyText appends a value escaped for COPY's text format.
func appendCopyText(dst, v []byte) []byte {
	for {
		i := bytes.IndexAny(v, "\\\t\n\r")
		if i < 0 {
			return append(dst, v...)
		}
		dst = append(dst, v[:i]...)
		switch v[i] {
		case '\\':
			dst = append(dst, `\\`...)
		case '\t':
			dst = append(dst, `\t`...)
		case '\n':
			dst = append(dst, `\n`...)
		case '\r':
			dst = append(dst, `\r`...)
		}
		v = v[i+1:]
	}
}

// jsonTrim drops JSON's white space (space, tab, CR, LF) around b.
func jsonTrim(b []byte) []byte { return bytes.Trim(b, " \t\r\n") }
