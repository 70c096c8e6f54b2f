package postgres

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// querySQL builds the statement of a secondary query. The predicate spells
// the path exactly as indexDDL does, so that a matching index is usable.
// Parameters: $1 the value, $2 the limit (NULL = all), $3 the offset. With
// q.Keys, the documents' key comes first.
func (s *store) querySQL(q *db.Query) (string, error) {
	sql, err := s.querySQLOf(q)
	if err != nil || q.Keys == nil || q.Kind == db.QueryAggregate {
		return sql, err
	}
	_, key := s.keyPred()
	return "SELECT " + key + "::text, " + strings.TrimPrefix(sql, "SELECT "), nil
}

func (s *store) querySQLOf(q *db.Query) (string, error) {
	if s.v.layout == "relational" && q.Kind != db.QueryDescendant {
		return s.relQuerySQL(q)
	}
	if s.v.doctype == "hstore" {
		return s.hstoreQuerySQL(q)
	}
	sel := s.docExpr()
	if q.Fields != nil {
		sel = s.projectExpr(q.Fields)
	}
	from := " FROM " + s.table
	page := " LIMIT $2 OFFSET $3"
	switch q.Kind {
	case db.QueryField:
		return "SELECT " + sel + from + " WHERE " + s.predExpr(q.Path) + " = $1::jsonb" + page, nil
	case db.QueryContains:
		return "SELECT " + sel + from + " WHERE " + s.predExpr(q.Path) + " @> $1::jsonb" + page, nil
	case db.QueryArray:
		path := quoteLiteral(jsonPathOf(db.PathSegments(q.Path)) + "[*]")
		var w string
		switch s.v.arrayop {
		case "jsonpath_match": // data @@ '$.p[*] == v'
			w = s.jsonbData() + " @@ (" + path + " || ' == ' || $1::text)::jsonpath"
		case "jsonpath_exists": // data @? '$.p[*] ? (@ == v)'
			w = s.jsonbData() + " @? (" + path + " || ' ? (@ == ' || $1::text || ')')::jsonpath"
		case "exists": // SQL over the elements
			w = "EXISTS (SELECT 1 FROM jsonb_array_elements(" + s.predExpr(q.Path) + ") e WHERE e = $1::jsonb)"
		default: // containment
			w = s.predExpr(q.Path) + " @> jsonb_build_array($1::jsonb)"
		}
		return "SELECT " + sel + from + " WHERE " + w + page, nil
	case db.QueryDescendant:
		if s.v.descendant == "jsonpath" {
			if err := s.needs("querykind=descendant with pg.descendantop=jsonpath", "jsonpath's @?", 12); err != nil {
				return "", err
			}
		}
		w, err := s.descendantPred(q.Path)
		if err != nil {
			return "", err
		}
		return "SELECT " + sel + from + " WHERE " + w + page, nil
	case db.QueryRange:
		e := s.predExpr(q.Path)
		_, order := s.keyPred()
		return "SELECT " + sel + from + " WHERE " + e + " >= $1::jsonb ORDER BY " + e + ", " + order + page, nil
	case db.QueryAggregate:
		return s.aggregateSQL(q)
	}
	return "", fmt.Errorf("postgres: query kind %v", q.Kind)
}

// appendQueryArgs appends the parameters of a query's statement: the
// value, the limit (NULL: none) and the offset; an aggregate has none.
func appendQueryArgs(dst []any, q *db.Query) []any {
	if q.Kind == db.QueryAggregate {
		return dst
	}
	var limit any
	if q.Limit > 0 {
		limit = q.Limit
	}
	value := q.Value
	if value == nil {
		value = []byte("null")
	}
	return append(dst, value, limit, q.Offset)
}

// aggregateSQL groups every document by q.Path: count, or avg/sum of the
// number at q.AggPath.
func (s *store) aggregateSQL(q *db.Query) (string, error) {
	agg := "count(*)"
	switch q.Func {
	case "avg", "sum":
		cast := "::numeric"
		if m := serverMajor(s.admin); m > 0 && m < 11 {
			cast = "::text::numeric" // jsonb casts to numeric from PostgreSQL 11
		}
		agg = q.Func + "((" + s.predExpr(q.AggPath) + ")" + cast + ")"
	case "count", "":
	default:
		return "", fmt.Errorf("postgres: aggregate function %q", q.Func)
	}
	return "SELECT " + s.predExpr(q.Path) + ", " + agg + " FROM " + s.table + " GROUP BY 1", nil
}

// Query runs a secondary query and returns how many rows it produced.
func (s *session) Query(ctx context.Context, q *db.Query) (int, error) {
	k := q.Kind.String() + "\x00" + q.Path + "\x00" + q.AggPath + "\x00" + q.Func + "\x00" + strings.Join(q.Fields, "\x00")
	if q.Keys != nil {
		k += "\x00keys"
	}
	name, ok := s.queries[k]
	if !ok {
		sql, err := s.st.querySQL(q)
		if err != nil {
			return 0, err
		}
		name = fmt.Sprintf("query%d", len(s.queries))
		if _, err := s.conn.Prepare(ctx, name, sql); err != nil {
			switch {
			case q.Kind == db.QueryDescendant && s.st.v.descendant == "jsquery" && strings.Contains(err.Error(), "jsquery"):
				return 0, fmt.Errorf("%s: %w", errNoJsquery, err)
			case q.Kind == db.QueryDescendant && s.st.v.descendant == "sqljson" && strings.Contains(err.Error(), "syntax error"):
				return 0, fmt.Errorf("pg.descendantop=sqljson: JSON_EXISTS needs PostgreSQL 17 or later: %w", err)
			}
			return 0, fmt.Errorf("postgres prepare: %w (statement: %s)", err, sql)
		}
		s.queries[k] = name
	}
	s.args = appendQueryArgs(s.args[:0], q)
	rows, err := s.conn.Query(ctx, name, s.args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		if q.Keys != nil && q.Kind != db.QueryAggregate {
			*q.Keys = append(*q.Keys, string(rows.RawValues()[0]))
		}
		n++
	}
	return n, rows.Err()
}

// descendantPred is the predicate "a member named as path's last segment,
// at any depth, equals $1" in the form pg.descendantop chooses.
func (s *store) descendantPred(path string) (string, error) {
	if s.v.layout == "relational" {
		return "", &db.ErrNotSupported{Backend: "postgres layout=relational", What: "querykind=descendant (a key at any depth)"}
	}
	key := db.LastSegment(path)
	quoted := strconv.Quote(key) // a JSON string: a jsonpath key and a jsquery key
	data := s.predExpr("")
	switch s.v.descendant {
	case "jsquery": // data @@ '*."k" = v'
		return data + " @@ (" + quoteLiteral("*."+quoted+" = ") + " || $1::text)::jsquery", nil
	case "sqljson": // JSON_EXISTS(data, '$.**."k" ? (@ == $v)' PASSING v)
		return "JSON_EXISTS(" + data + ", " + quoteLiteral("$.**."+quoted+" ? (@ == $v)") + " PASSING $1::jsonb AS v)", nil
	}
	// data @? '$.**."k" ? (@ == v)'
	return data + " @? (" + quoteLiteral("$.**."+quoted+" ? (@ == ") + " || $1::text || ')')::jsonpath", nil
}
