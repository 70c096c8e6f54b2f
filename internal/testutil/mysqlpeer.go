package testutil

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/server/servertest"
)

// MySQLPeerKind is the kind of the MySQL 8 peer (go-mysql-server, in
// memory; see servertest.StartMySQLPeer): a MySQL-8-compatible engine that
// checks docbench's MySQL 8 SQL, never a performance reference.
const MySQLPeerKind = "mysql:peer"

// mysqlPeerTimeout bounds the peer's start, which includes its first build
// (module download and compilation of go-mysql-server: minutes on a busy
// machine), in place of startTimeout.
const mysqlPeerTimeout = 15 * time.Minute

func init() {
	start := starterOf(func(ctx context.Context) (*servertest.MySQLPeer, error) {
		return servertest.StartMySQLPeer(ctx, servertest.MySQLPeerOptions{Log: os.Stderr})
	}, func(p *servertest.MySQLPeer) string { return p.URL })
	kinds[MySQLPeerKind] = func(ctx context.Context) (string, func() error, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), mysqlPeerTimeout)
		defer cancel()
		return start(ctx)
	}
}

// MySQLPeer returns the URL (mysql://root@127.0.0.1:PORT/docbench) of the
// shared MySQL 8 peer, starting it (and building it, the first time) on
// first use. Give each test its own database with FreshMySQLDatabase.
func MySQLPeer(t testing.TB) string {
	t.Helper()
	return Server(t, MySQLPeerKind)
}
