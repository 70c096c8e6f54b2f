package postgres

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/server"
)

// embeddedVersion returns the zonky version of the managed server target
// asks for: postgres:embedded@VERSION, or property pg.version (a study's
// sweep axis), else server.DefaultPostgresVersion. ok is false for a
// target that is not the managed server (which pg.version cannot choose).
func embeddedVersion(target string, props map[string]string) (version string, ok bool, err error) {
	base, at, hasAt := strings.Cut(target, "@")
	prop := strings.TrimSpace(props["pg.version"])
	if !strings.EqualFold(base, Embedded) {
		if prop != "" {
			return "", false, fmt.Errorf("property pg.version=%s: it chooses the server of %s; target %s is a server of its own", prop, Embedded, db.Redact(target))
		}
		return "", false, nil
	}
	if hasAt && strings.TrimSpace(at) == "" {
		return "", true, fmt.Errorf("target %s: want %s@VERSION, VERSION a major version (%s) or a full one such as %s",
			target, Embedded, server.PostgresMajors(), server.PostgresVersions[4])
	}
	version, err = server.ResolvePostgresVersion(at)
	if err != nil {
		return "", true, fmt.Errorf("target %s: %v", target, err)
	}
	if prop != "" {
		pv, err := server.ResolvePostgresVersion(prop)
		if err != nil {
			return "", true, fmt.Errorf("property pg.version=%s: %v", prop, err)
		}
		if hasAt && pv != version {
			return "", true, fmt.Errorf("target %s and property pg.version=%s name different PostgreSQL versions (%s, %s)", target, prop, version, pv)
		}
		version = pv
	}
	return version, true, nil
}

// checkTarget is the backend's CheckTarget: the version asked for.
func checkTarget(target string, props map[string]string) error {
	_, _, err := embeddedVersion(target, props)
	return err
}

// serverMajor is the major version of the server conn is connected to (13
// for "13.23", 9 for "9.6.24"), from the server_version it reported at
// startup; 0 when it did not.
func serverMajor(conn *pgx.Conn) int {
	v := conn.PgConn().ParameterStatus("server_version")
	n, _ := strconv.Atoi(strings.SplitN(strings.TrimLeft(v, " "), ".", 2)[0])
	return n
}

// needs is a *db.ErrNotSupported when the server is older than PostgreSQL
// major, which feature (what choice asks for) needs; nil otherwise (or
// when the server did not say its version).
func (s *store) needs(choice, feature string, major int) error {
	if m := serverMajor(s.admin); m > 0 && m < major {
		return &db.ErrNotSupported{Backend: "PostgreSQL " + s.admin.PgConn().ParameterStatus("server_version"),
			What: fmt.Sprintf("%s (%s needs PostgreSQL %d)", choice, feature, major)}
	}
	return nil
}

// variantNeeds refuses, before anything runs, the operators the
// properties chose that the server is too old for.
func (s *store) variantNeeds() error {
	for _, c := range []struct {
		on              bool
		choice, feature string
		major           int
	}{
		{s.v.pathop == "subscript", "pg.pathop=subscript", "jsonb subscripting", 14},
		{s.v.pathop == "jsonpath", "pg.pathop=jsonpath", "jsonb_path_query_first", 12},
		{s.v.layout == "document" && s.v.keylookup == "jsonpath", "pg.keylookup=jsonpath", "jsonpath's @@", 12},
		{s.v.arrayop == "jsonpath_match", "pg.arrayop=jsonpath_match", "jsonpath's @@", 12},
		{s.v.arrayop == "jsonpath_exists", "pg.arrayop=jsonpath_exists", "jsonpath's @?", 12},
		{s.v.descendant == "sqljson", "pg.descendantop=sqljson", "JSON_EXISTS", 17},
		{s.v.compression != "", "pg.compression=" + s.v.compression, "SET COMPRESSION", 14},
	} {
		if c.on {
			if err := s.needs(c.choice, c.feature, c.major); err != nil {
				return err
			}
		}
	}
	return nil
}
