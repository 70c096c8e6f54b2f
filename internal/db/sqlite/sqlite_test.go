package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/db/dbtest"
)

func openTemp(t *testing.T, props map[string]string) db.Store {
	t.Helper()
	st, err := db.Open(context.Background(), db.Config{Target: "sqlite:" + filepath.Join(t.TempDir(), "t.db"), Props: props})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestConformance(t *testing.T) {
	dbtest.Run(t, openTemp(t, nil))
}

func TestStoresTextKeysAndJSONB(t *testing.T) {
	st := openTemp(t, nil).(*store)
	dbtest.Run(t, st)
	var keyType, dataType string
	var valid int
	err := st.db.QueryRow(`SELECT typeof(ycsb_key), typeof(data), json_valid(data, 8) FROM usertable LIMIT 1`).Scan(&keyType, &dataType, &valid)
	if err != nil {
		t.Fatal(err)
	}
	if keyType != "text" || dataType != "blob" || valid != 1 {
		t.Fatalf("key %s, data %s, jsonb valid %d; want text, blob (jsonb), 1", keyType, dataType, valid)
	}
}

func TestInfoReportsDurability(t *testing.T) {
	st := openTemp(t, map[string]string{"sqlite.synchronous": "normal"})
	info, err := st.Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if info.Settings["journal_mode"] != "wal" || info.Settings["synchronous"] != "normal" {
		t.Fatalf("settings %v: want journal_mode=wal synchronous=normal", info.Settings)
	}
}

func TestBadOption(t *testing.T) {
	_, err := db.Open(context.Background(), db.Config{Target: "sqlite:" + filepath.Join(t.TempDir(), "t.db"),
		Props: map[string]string{"sqlite.synchronous": "sometimes"}})
	if err == nil || err.Error() != `property sqlite.synchronous="sometimes": not one of off, normal, full, extra` {
		t.Fatalf("err = %v", err)
	}
}
