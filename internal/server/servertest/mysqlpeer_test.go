package servertest

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/docbench/docbench/internal/server/proc/proctest"
)

func startMySQLPeerForTest(t *testing.T) *MySQLPeer {
	t.Helper()
	// A first build takes minutes.
	return startForTest(t, "MySQL 8 peer", 15*time.Minute, func(ctx context.Context, log io.Writer) (*MySQLPeer, error) {
		return StartMySQLPeer(ctx, MySQLPeerOptions{Log: log})
	})
}

// TestMySQLPeer starts the peer (building it on first use), checks that it
// reports a MySQL 8 version in the handshake and VERSION() and keeps what
// is written, and that Stop stops it.
func TestMySQLPeer(t *testing.T) {
	p := startMySQLPeerForTest(t)
	cfg := mysql.NewConfig()
	cfg.Net, cfg.Addr, cfg.User = "tcp", fmt.Sprintf("127.0.0.1:%d", p.Port), "root"
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	db := sql.OpenDB(conn)
	defer db.Close()
	var version string
	if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(version, "8.0.") || !strings.HasSuffix(version, "-go-mysql-server") {
		t.Errorf("VERSION() = %q, want 8.0.x-go-mysql-server", version)
	}
	for _, q := range []string{"CREATE DATABASE d", "CREATE TABLE d.t (k VARCHAR(10) PRIMARY KEY, v JSON)", `INSERT INTO d.t VALUES ('a', '{"n":1}')`} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	var n int
	if err := db.QueryRow("SELECT JSON_EXTRACT(v, '$.n') FROM d.t WHERE k = ?", "a").Scan(&n); err != nil || n != 1 {
		t.Fatalf("read back %d, %v", n, err)
	}
	db.Close()
	if !strings.HasPrefix(p.Binary, mustCacheRoot(t)) {
		t.Errorf("binary %s is not in the cache %s", p.Binary, mustCacheRoot(t))
	}
	proctest.CheckStopped(t, p, p.own.Cmd.Process.Pid)
}

// TestMySQLPeerStaleCleanup: CleanStaleMySQLPeers kills a peer whose owner
// is gone and removes its directory, and leaves a young directory alone.
func TestMySQLPeerStaleCleanup(t *testing.T) {
	p := startMySQLPeerForTest(t)
	proctest.CheckStaleCleanup(t, p, mysqlPeers.pattern, CleanStaleMySQLPeers)
}

// TestMySQLPeerOwnerKilled: the peer dies with the process that started it.
func TestMySQLPeerOwnerKilled(t *testing.T) {
	checkOwnerKilled(t, func() (*MySQLPeer, error) {
		return StartMySQLPeer(context.Background(), MySQLPeerOptions{})
	}, func() { startMySQLPeerForTest(t).Stop() }, CleanStaleMySQLPeers)
}

// TestMySQLPeerSourceMissing: outside a checkout, the error says where the
// sources should be, in one line.
func TestMySQLPeerSourceMissing(t *testing.T) {
	_, err := MySQLPeerBinary(context.Background(), t.TempDir(), nil)
	if err == nil || strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), "is not the peer's module") {
		t.Fatalf("err = %v; want one line", err)
	}
	t.Log(err)
}
