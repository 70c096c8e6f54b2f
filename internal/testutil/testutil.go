// Package testutil starts the real database servers tests run against.
//
// A server of each kind is started at most once per test binary, on first
// use, and stopped by Main when the tests are done:
//
//	func TestMain(m *testing.M) { testutil.Main(m) }
//
//	func TestX(t *testing.T) {
//		url := testutil.FreshDatabase(t, testutil.Postgres(t, "embedded"))
//		…
//	}
//
// When a server cannot start, the test fails if $CI is set (CI never skips)
// and is skipped with the reason otherwise.
package testutil

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docbench/docbench/internal/server"
	"github.com/docbench/docbench/internal/server/servertest"
)

// startTimeout bounds a server start, including a first download.
const startTimeout = 5 * time.Minute

// A starter starts a server and returns its URL and a function stopping it.
type starter func(ctx context.Context) (url string, stop func() error, err error)

// kinds lists the servers tests can ask for, by "family:kind". MariaDB, the
// MongoDB wire peer and the MySQL 8 peer join as "mariadb:local",
// "mongodb:java" and "mysql:peer".
var kinds = map[string]starter{
	"postgres:embedded": postgresStarter(server.StartPostgres),
	"postgres:debian":   postgresStarter(servertest.StartLocalPostgres),
	// An older managed PostgreSQL (postgres:embedded@13), cached once
	// like the default version.
	"postgres:embedded@13": postgresStarter(func(ctx context.Context, o server.PostgresOptions) (*server.Postgres, error) {
		o.Version = OlderPostgres
		return server.StartPostgres(ctx, o)
	}),
}

// OlderPostgres is the zonky version of the "embedded@13" server: tests of
// what an older server lacks run on it.
const OlderPostgres = "13.23.0"

// postgresSettings are applied to every test PostgreSQL: fsync=off makes
// tests faster and changes nothing a query can observe (WAL is still written).
var postgresSettings = map[string]string{"fsync": "off"}

func postgresStarter(start func(context.Context, server.PostgresOptions) (*server.Postgres, error)) starter {
	return starterOf(func(ctx context.Context) (*server.Postgres, error) {
		return start(ctx, server.PostgresOptions{Settings: postgresSettings, Log: os.Stderr})
	}, func(p *server.Postgres) string { return p.URL })
}

// starterOf makes a starter of a server's start function; url reads the
// running server's URL.
func starterOf[S interface{ Stop() error }](start func(context.Context) (S, error), url func(S) string) starter {
	return func(ctx context.Context) (string, func() error, error) {
		s, err := start(ctx)
		if err != nil {
			return "", nil, err
		}
		return url(s), s.Stop, nil
	}
}

// instance is the once-per-binary state of one kind.
type instance struct {
	once sync.Once
	url  string
	stop func() error
	err  error
}

var (
	mu        sync.Mutex
	instances = map[string]*instance{}
)

// Postgres returns the URL of a private PostgreSQL server: kind "embedded"
// is the managed PostgreSQL 18 (server.StartPostgres), "embedded@13" the
// managed OlderPostgres, "debian" a cluster of the local Debian install
// (PostgreSQL 15). The server is shared by all
// tests of the binary; create your own database with FreshDatabase.
func Postgres(t testing.TB, kind string) string {
	t.Helper()
	return Server(t, "postgres:"+kind)
}

// Server returns the URL of the shared server of a registered kind
// ("postgres:embedded", "postgres:debian"), starting it on first use.
func Server(t testing.TB, kind string) string {
	t.Helper()
	start, ok := kinds[kind]
	if !ok {
		t.Fatalf("testutil: unknown server kind %q (known: %s)", kind, knownKinds())
	}
	mu.Lock()
	in := instances[kind]
	if in == nil {
		in = &instance{}
		instances[kind] = in
	}
	mu.Unlock()
	in.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
		defer cancel()
		in.url, in.stop, in.err = start(ctx)
	})
	if in.err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s server unavailable (CI is set, so this fails): %v", kind, in.err)
		}
		t.Skipf("%s server unavailable: %v", kind, in.err)
	}
	return in.url
}

func knownKinds() string {
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

// Main runs the tests without a study's machine-speed control, then the
// cleanups (files the test binary made for all its tests), stops every
// server they started and exits. Call it from TestMain. (Without it
// servers still die with the test binary, and their directories are
// removed by the next start.)
func Main(m *testing.M, cleanups ...func()) {
	// A study's machine-speed control would make which runs count, and
	// how many there are, depend on the machine's speed: tests take none
	// (a test of the control turns it on with t.Setenv).
	os.Setenv("DOCBENCH_CONTROL", "off")
	code := m.Run()
	for _, c := range cleanups {
		c()
	}
	if err := StopAll(); err != nil {
		fmt.Fprintln(os.Stderr, "testutil:", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// StopAll stops every server started so far; Main calls it.
func StopAll() error {
	mu.Lock()
	defer mu.Unlock()
	var errs []string
	for kind, in := range instances {
		if in.stop != nil {
			if err := in.stop(); err != nil {
				errs = append(errs, fmt.Sprintf("stop %s: %v", kind, err))
			}
		}
		delete(instances, kind)
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}
