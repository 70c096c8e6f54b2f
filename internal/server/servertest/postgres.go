// Package servertest starts the servers docbench's tests use and the binary
// does not: the MongoDB wire-protocol peer (mongo-java-server), the MySQL 8
// peer (go-mysql-server) and a private cluster of the local Debian
// PostgreSQL install. internal/testutil shares them between the tests of a
// binary.
package servertest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/docbench/docbench/internal/server"
)

// StartLocalPostgres starts a private cluster from the highest installed
// /usr/lib/postgresql/*/bin (Debian's layout); as root it runs as the
// "postgres" system user the package creates. o.Version is ignored.
func StartLocalPostgres(ctx context.Context, o server.PostgresOptions) (*server.Postgres, error) {
	bin, err := LocalPostgresBinDir()
	if err != nil {
		return nil, fmt.Errorf("local PostgreSQL unavailable: %w", err)
	}
	p, err := server.StartInstalledPostgres(ctx, bin, "postgres", o)
	if err != nil {
		return nil, fmt.Errorf("local PostgreSQL (%s): %w", bin, err)
	}
	return p, nil
}

// LocalPostgresBinDir finds the bin directory of the highest major version
// under /usr/lib/postgresql.
func LocalPostgresBinDir() (string, error) {
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	best, bestV := "", -1.0
	for _, m := range matches {
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(m))), 64)
		if err == nil && v > bestV {
			best, bestV = filepath.Dir(m), v
		}
	}
	if best == "" {
		return "", errors.New("no /usr/lib/postgresql/*/bin/postgres (apt-get install postgresql)")
	}
	return best, nil
}
