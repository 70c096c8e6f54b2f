package mysql

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// queryStm is a prepared secondary query.
type queryStm struct {
	stmt *sql.Stmt
	cols int // columns a row has
}

// valueClass is how a query value is compared.
type valueClass byte

const (
	classString valueClass = 's' // compared as unquoted text (an index's generated column holds it)
	classNumber valueClass = 'n' // compared as DOUBLE
	classJSON   valueClass = 'j' // objects, arrays, true/false/null: compared as JSON
)

func classify(v []byte) valueClass {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return classJSON
	}
	switch c := v[0]; {
	case c == '"':
		return classString
	case c == '-' || c >= '0' && c <= '9':
		return classNumber
	}
	return classJSON
}

// unquote returns the text of a JSON string without allocating when it has
// no escapes.
func unquote(v []byte) ([]byte, error) {
	v = bytes.TrimSpace(v)
	if len(v) >= 2 && bytes.IndexByte(v, '\\') < 0 {
		return v[1 : len(v)-1], nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// Query runs a secondary query and returns how many documents (or groups)
// it produced. A path with a secondary index (Schema.Indexes) is queried
// through its generated column, by name: MariaDB uses the index only then.
func (s *session) Query(ctx context.Context, q *db.Query) (int, error) {
	if q.Kind >= db.NumQueryKinds {
		return 0, fmt.Errorf("%s: query kind %v", s.d.flavour(), q.Kind)
	}
	if q.Kind == db.QueryDescendant && s.d.compat == gmsCompat {
		// TestMySQL8PeerLimitations: MySQL 8 evaluates '$**."k"'; the peer
		// matches nothing with it, and a count of 0 would be a lie.
		return 0, &db.ErrNotSupported{Backend: s.d.flavour(),
			What: "querykind=descendant: go-mysql-server evaluates a '$**' path to no match (MySQL 8 and MariaDB do not)"}
	}
	class, err := s.queryClass(q)
	if err != nil {
		return 0, err
	}
	qs, err := s.queryStmt(ctx, q, class)
	if err != nil {
		return 0, err
	}
	if s.Args, err = s.appendQueryArgs(s.Args[:0], q, class); err != nil {
		return 0, err
	}
	if q.Keys != nil && q.Kind != db.QueryAggregate {
		return s.CountKeys(ctx, qs.stmt, qs.cols, q.Keys, s.Args...)
	}
	return s.Count(ctx, qs.stmt, qs.cols, s.Args...)
}

// appendQueryArgs appends the arguments a query's statement binds: the
// value (unquoted when compared as text), then limit and offset.
func (s *session) appendQueryArgs(args []any, q *db.Query, class valueClass) ([]any, error) {
	switch q.Kind {
	case db.QueryField, db.QueryArray, db.QueryRange:
		v := q.Value
		if class == classString {
			var err error
			if v, err = unquote(v); err != nil {
				return args, fmt.Errorf("%s: query value %s: %w", s.d.flavour(), q.Value, err)
			}
		}
		args = append(args, v)
	case db.QueryContains, db.QueryDescendant:
		args = append(args, q.Value)
	}
	if q.Kind != db.QueryAggregate {
		limit := int64(q.Limit)
		if limit <= 0 {
			limit = maxLimit
		}
		args = append(args, limit, int64(max(q.Offset, 0)))
	}
	return args, nil
}

// queryClass is how a query compares its value: JSON where the kind or the
// server leaves no other way.
func (s *session) queryClass(q *db.Query) (valueClass, error) {
	class := classify(q.Value)
	if q.Kind == db.QueryContains || q.Kind == db.QueryAggregate || q.Kind == db.QueryDescendant {
		class = classJSON
	}
	if q.Kind == db.QueryArray && (class != classString || !s.d.memberOf) {
		class = classJSON
	}
	if q.Kind == db.QueryRange && class == classJSON {
		return class, fmt.Errorf("%s: range query on %s needs a string or number lower bound, not %s", s.d.flavour(), q.Path, q.Value)
	}
	return class, nil
}

// queryStmt prepares (once per shape) the statement of a query.
func (s *session) queryStmt(ctx context.Context, q *db.Query, class valueClass) (*queryStm, error) {
	s.Key = append(s.Key[:0], byte(q.Kind), byte(class))
	for _, p := range []string{q.Path, q.AggPath, q.Func} {
		s.Key = append(s.Key, p...)
		s.Key = append(s.Key, 0)
	}
	if q.Keys != nil {
		s.Key = append(s.Key, 2)
	}
	if q.Fields != nil {
		s.Key = append(s.Key, 1)
		for _, f := range q.Fields {
			s.Key = append(s.Key, f...)
			s.Key = append(s.Key, 0)
		}
	}
	if qs, ok := s.queries[string(s.Key)]; ok {
		return qs, nil
	}
	key := string(s.Key)
	text, qs, err := s.querySQL(q, class)
	if err != nil {
		return nil, err
	}
	if qs.stmt, err = s.Prepare(ctx, text); err != nil {
		return nil, err
	}
	s.queries[key] = qs
	return qs, nil
}

// querySQL returns the statement text of a query and its result shape.
func (s *session) querySQL(q *db.Query, class valueClass) (string, *queryStm, error) {
	qs := &queryStm{cols: 1}
	path := quoteLiteral(s.JSONPath(q.Path))
	extract := "JSON_EXTRACT(data, " + path + ")"
	// text is the expression compared with a string value: the indexed
	// generated column when there is one, else the same expression.
	text := "JSON_UNQUOTE(" + extract + ")"
	number := "CAST(" + extract + " AS DOUBLE)"
	if ix := s.indexes[q.Path]; ix.col != "" && ix.numeric {
		number = quoteIdent(ix.col)
	} else if ix.col != "" {
		text = quoteIdent(ix.col)
	}

	if q.Kind == db.QueryAggregate {
		if q.Path == "" {
			return "", nil, fmt.Errorf("%s: aggregate query without a group-by path", s.d.flavour())
		}
		var agg string
		switch strings.ToLower(q.Func) {
		case "count":
			agg = "COUNT(*)"
			if q.AggPath != "" {
				agg = "COUNT(JSON_EXTRACT(data, " + quoteLiteral(s.JSONPath(q.AggPath)) + "))"
			}
		case "avg", "sum":
			if q.AggPath == "" {
				return "", nil, fmt.Errorf("%s: aggregate %s without a path to aggregate", s.d.flavour(), q.Func)
			}
			agg = strings.ToUpper(q.Func) + "(CAST(JSON_EXTRACT(data, " + quoteLiteral(s.JSONPath(q.AggPath)) + ") AS DOUBLE))"
		default:
			return "", nil, fmt.Errorf("%s: aggregate function %q (want avg, sum or count)", s.d.flavour(), q.Func)
		}
		qs.cols = 2
		return "SELECT " + text + ", " + agg + " FROM " + s.Table + " GROUP BY " + text, qs, nil
	}

	var where, order string
	switch q.Kind {
	case db.QueryField:
		switch class {
		case classString:
			where = text + " = ?"
		case classNumber:
			where = number + " = ?"
		default:
			if s.d.mariadb {
				// JSON_EQUALS(NULL, 'true') is 1 on MariaDB: an absent path must not match.
				where = "(" + extract + " IS NOT NULL AND JSON_EQUALS(" + extract + ", ?))"
			} else {
				where = extract + " = CAST(? AS JSON)"
			}
		}
	case db.QueryContains:
		if q.Path == "" {
			where = "JSON_CONTAINS(data, " + s.d.jsonArg() + ")"
		} else {
			where = "JSON_CONTAINS(data, " + s.d.jsonArg() + ", " + path + ")"
		}
	case db.QueryDescendant:
		// '$**."k"': every member k at any depth, as an array of their values.
		k, _ := json.Marshal(db.LastSegment(q.Path))
		where = "JSON_CONTAINS(JSON_EXTRACT(data, " + quoteLiteral("$**."+string(k)) + "), " + s.d.jsonArg() + ")"
	case db.QueryArray:
		switch {
		case s.d.memberOf && class == classString:
			// The form a multi-valued index on CAST(… AS CHAR(255) ARRAY) serves.
			where = "? MEMBER OF (" + extract + ")"
		case s.d.memberOf:
			where = "CAST(? AS JSON) MEMBER OF (" + extract + ")"
		default:
			where = "JSON_CONTAINS(" + extract + ", " + s.d.jsonArg() + ")"
		}
	case db.QueryRange:
		cmp := text
		if class == classNumber {
			cmp = number
		}
		where = cmp + " >= ?"
		order = " ORDER BY " + cmp
	}
	sel := s.readAll
	if q.Fields != nil {
		sel, _ = selectFields(q.Fields)
		qs.cols = max(len(q.Fields), 1)
	}
	if q.Keys != nil {
		sel = "ycsb_key, " + sel
		qs.cols++
	}
	return "SELECT " + sel + " FROM " + s.Table + " WHERE " + where + order + " LIMIT ? OFFSET ?", qs, nil
}
