package postgres

import (
	"context"
	"testing"

	"github.com/docbench/docbench/internal/testutil"
)

// Real version() strings, as the servers print them: CockroachDB and
// YugabyteDB as found in public repositories' docs, tests and session
// transcripts; PostgreSQL 18.6 and 15.18 from the test servers here.
func TestDetectFlavour(t *testing.T) {
	for in, want := range map[string]Flavour{
		"CockroachDB CCL v20.1.15 (x86_64-unknown-linux-gnu, built 2021/04/26 16:11:58, go1.13.9)":                                                       {"cockroachdb", "v20.1.15"},
		"CockroachDB CCL v21.1.1 (x86_64-apple-darwin19, built 2021/05/24 15:00:00, go1.15.11)":                                                          {"cockroachdb", "v21.1.1"},
		"CockroachDB CCL v23.2.5 (x86_64-pc-linux-gnu)":                                                                                                  {"cockroachdb", "v23.2.5"},
		"PostgreSQL 11.2-YB-2.21.0.1-b0 on x86_64-pc-linux-gnu, compiled by clang version 16.0.6 (https://github.com/yugabyte/llvm-project.git), 64-bit": {"yugabytedb", "2.21.0.1-b0"},
		"PostgreSQL 11.2-YB-2.1.6.0-b0 on x86_64-pc-linux-gnu, compiled by gcc (Homebrew gcc 5.5.0_4) 5.5.0, 64-bit":                                     {"yugabytedb", "2.1.6.0-b0"},
		"PostgreSQL 15.12-YB-2025.1.0.0-b0": {"yugabytedb", "2025.1.0.0-b0"},
		"PostgreSQL 18.6 on x86_64-pc-linux-gnu, compiled by gcc (Ubuntu 7.5.0-3ubuntu1~18.04) 7.5.0, 64-bit":                         {"postgresql", ""},
		"PostgreSQL 15.18 (Debian 15.18-0+deb12u1) on x86_64-pc-linux-gnu, compiled by gcc (Debian 12.2.0-14+deb12u1) 12.2.0, 64-bit": {"postgresql", ""},
		"PostgreSQL 10.6, compiled by Visual C++ build 1800, 64-bit":                                                                  {"postgresql", ""},
		"Something else 1.0": {"unknown", ""},
	} {
		if got := DetectFlavour(in); got != want {
			t.Errorf("%.50s…: %+v, want %+v", in, got, want)
		}
	}
}

// A real PostgreSQL records flavour=postgresql and no node count.
func TestInfoRecordsFlavour(t *testing.T) {
	for _, kind := range servers {
		t.Run(kind, func(t *testing.T) {
			st := openStore(t, testutil.FreshDatabase(t, testutil.Postgres(t, kind)), nil)
			info, err := st.Info(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if info.Settings["flavour"] != "postgresql" || info.Settings["nodes"] != "" {
				t.Errorf("settings %v", info.Settings)
			}
			var v string
			if err := st.admin.QueryRow(context.Background(), "SELECT version()").Scan(&v); err != nil {
				t.Fatal(err)
			}
			if f := DetectFlavour(v); f.Name != "postgresql" {
				t.Errorf("version() %q detected as %+v", v, f)
			}
			t.Logf("version(): %s", v)
		})
	}
}
