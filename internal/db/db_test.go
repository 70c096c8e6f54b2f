package db_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docbench/docbench/internal/db"
	_ "github.com/docbench/docbench/internal/db/all"
)

// A property only another backend understands is never silently ignored.
func TestForeignOptionsAreRefused(t *testing.T) {
	target := "sqlite:" + filepath.Join(t.TempDir(), "x.db")
	for props, want := range map[string]map[string]string{
		"property index=gin (an option of postgres) is not supported by sqlite":          {"index": "gin"},
		"property server.synchronous_commit=off (server.… configures":                    {"server.synchronous_commit": "off"},
		"property pg.compression=lz4 (an option of postgres) is not supported by sqlite": {"pg.compression": "lz4"},
	} {
		_, err := db.Open(context.Background(), db.OpenRequest{Target: target, Props: want})
		if err == nil || !strings.Contains(err.Error(), props) {
			t.Errorf("%v: err %v, want %q", want, err, props)
		}
	}
	// Other backends' defaults and shared options are fine.
	st, err := db.Open(context.Background(), db.OpenRequest{Target: target, Props: map[string]string{"index": "btree", "doctype": "text", "layout": "column"}})
	if err != nil {
		t.Fatal(err)
	}
	st.Close()
}

// Every password-bearing form docbench accepts, and the texts that quote
// them, lose the password.
func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:secret@h:5432/db":                                                           "postgres://u:***@h:5432/db",
		"postgresql://u:secret@h/db?sslmode=disable":                                              "postgresql://u:***@h/db?sslmode=disable",
		"postgres://u@h/db?password=secret":                                                       "postgres://u@h/db?password=***",
		"postgres://u@h/db?sslmode=require&sslpassword=secret&x=1":                                "postgres://u@h/db?sslmode=require&sslpassword=***&x=1",
		"host=h user=u password=secret dbname=db":                                                 "host=h user=u password=*** dbname=db",
		"host=h password='se cr\\'et' dbname=db":                                                  "host=h password=*** dbname=db",
		"mongodb://u@h/db":                                                                        "mongodb://u@h/db",
		"mongodb://u:secret@h1:27017,h2:27017/db?replicaSet=rs":                                   "mongodb://u:***@h1:27017,h2:27017/db?replicaSet=rs",
		"mongodb+srv://u:secret@cluster.example.net/db":                                           "mongodb+srv://u:***@cluster.example.net/db",
		"mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:secret": "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=***",
		"sqlite:/tmp/x.db":                                                                        "sqlite:/tmp/x.db",
		"mysql://root:p@ss@127.0.0.1/x":                                                           "mysql://root:***@127.0.0.1/x",
		"root:secret@tcp(127.0.0.1:3306)/db":                                                      "root:***@tcp(127.0.0.1:3306)/db",
		"root:secret@unix(/run/mysqld.sock)/db":                                                   "root:***@unix(/run/mysqld.sock)/db",
		"root:secret@/db":                                                                         "root:***@/db",
		`target postgres://u@h/db?password=secret: dial tcp: connection refused`:                  `target postgres://u@h/db?password=*** dial tcp: connection refused`,
		`{"target": "postgres://u:secret@h/db", "error": "password=secret"}`:                      `{"target": "postgres://u:***@h/db", "error": "password=***"}`,
	} {
		if got := db.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

// No text holding a password in any accepted form keeps it.
func FuzzRedact(f *testing.F) {
	forms := []string{
		"postgres://u:%s@h/db", "postgres://u@h/db?password=%s", "postgres://u@h/db?a=b&sslpassword=%s",
		"host=h password=%s dbname=x", "host=h password='%s'", "mongodb://u:%s@h1,h2/db", "mysql://u:%s@h:3306/db",
		"u:%s@tcp(h:3306)/db", "error: target postgres://u:%s@h/db: refused",
	}
	for i := range forms {
		f.Add(i, "s3cr3tpw", "prefix ", " suffix")
	}
	f.Fuzz(func(t *testing.T, form int, secret, before, after string) {
		if form < 0 {
			form = -form
		}
		// A password as people write them: no spaces, quotes, separators.
		if len(secret) < 6 || strings.ContainsAny(secret, " \t\r\n\"'\\/?#&;@,()=%") {
			return
		}
		in := before + fmt.Sprintf(forms[form%len(forms)], secret) + after
		if strings.Contains(before+after, secret) {
			return
		}
		if out := db.Redact(in); strings.Contains(out, secret) {
			t.Fatalf("Redact(%q) = %q keeps the password", in, out)
		}
	})
}
