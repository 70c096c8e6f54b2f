package postgres

import (
	"context"
	"strconv"
	"strings"
)

// Flavour is the kind of server behind the PostgreSQL wire protocol, as its
// version() string tells it.
type Flavour struct {
	Name    string // postgresql, cockroachdb, yugabytedb, citus, or unknown
	Version string // the flavour's own version (CockroachDB v24.3.5, YugabyteDB 2.21.0.1-b0, Citus' extension version)
}

// DetectFlavour reads the flavour from version(): CockroachDB answers
// "CockroachDB CCL v24.3.5 (x86_64-pc-linux-gnu, built …)", YugabyteDB
// "PostgreSQL 11.2-YB-2.21.0.1-b0 on x86_64-pc-linux-gnu, …". Citus is an
// extension of PostgreSQL and says nothing in version(): its
// pg_extension row tells (see detectCitus).
func DetectFlavour(version string) Flavour {
	v := strings.TrimSpace(version)
	fields := strings.Fields(v)
	switch {
	case strings.HasPrefix(v, "CockroachDB"):
		f := Flavour{Name: "cockroachdb"}
		for _, x := range fields[1:] {
			if strings.HasPrefix(x, "v") && len(x) > 1 && x[1] >= '0' && x[1] <= '9' {
				f.Version = x
				break
			}
		}
		return f
	case strings.HasPrefix(v, "PostgreSQL") && len(fields) > 1 && strings.Contains(strings.ToUpper(fields[1]), "-YB-"):
		i := strings.Index(strings.ToUpper(fields[1]), "-YB-")
		return Flavour{Name: "yugabytedb", Version: fields[1][i+4:]}
	case strings.HasPrefix(v, "PostgreSQL"):
		return Flavour{Name: "postgresql"}
	}
	return Flavour{Name: "unknown"}
}

// nodeQueries count the nodes of a distributed flavour, as its own catalog
// says. Only the PostgreSQL and Citus paths run on the test machines; the
// others are written from the vendors' documentation (unverified).
var nodeQueries = map[string]string{
	"citus":       "SELECT count(*) FROM citus_get_active_worker_nodes()",
	"cockroachdb": "SELECT count(*) FROM crdb_internal.gossip_nodes WHERE is_live",
	"yugabytedb":  "SELECT count(*) FROM yb_servers()",
}

// flavourSettings records the flavour, its version and, where the server
// says it, its node count. Failures leave a figure out; they never fail
// the phase.
func (s *store) flavourSettings(ctx context.Context, settings map[string]string) {
	var version string
	if err := s.admin.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return
	}
	f := DetectFlavour(version)
	if f.Name == "postgresql" {
		var ext string
		if err := s.admin.QueryRow(ctx, "SELECT extversion FROM pg_extension WHERE extname = 'citus'").Scan(&ext); err == nil {
			f = Flavour{Name: "citus", Version: ext}
		}
	}
	settings["flavour"] = f.Name
	if f.Version != "" {
		settings["flavour_version"] = f.Version
	}
	if q, ok := nodeQueries[f.Name]; ok {
		var n int64
		if err := s.admin.QueryRow(ctx, q).Scan(&n); err == nil {
			settings["nodes"] = strconv.FormatInt(n, 10)
		}
	}
}
