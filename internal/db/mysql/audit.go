package mysql

import (
	"sort"
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// audit classifies a MySQL or MariaDB target from its recorded variables
// (innodb_flush_log_at_trx_commit, sync_binlog, log_bin,
// innodb_flush_method, innodb_buffer_pool_size) and layout (the key Info
// describes, one "index PATH" entry per secondary index).
func audit(settings, layout map[string]string) db.Audit {
	a := db.NewAudit()
	a.Durability, a.DurabilityDetail = durability(settings)
	key := layout["key"]
	a.KeyIndexDetail = key
	switch {
	case strings.Contains(key, "generated"):
		a.KeyIndex = db.KeyGeneratedColumn
	case strings.Contains(key, "PRIMARY KEY"):
		a.KeyIndex = db.KeyPrimaryBtree
	}
	var idx []string
	for k, v := range layout {
		if p, ok := strings.CutPrefix(k, "index "); ok {
			idx = append(idx, p+": "+v)
		}
	}
	if len(idx) > 0 {
		sort.Strings(idx)
		a.SecondaryIndexes = strings.Join(idx, "; ")
	}
	a.Compression = "none (InnoDB row format default)"
	if v := settings["innodb_buffer_pool_size"]; v != "" {
		a.Memory = "innodb_buffer_pool_size=" + db.HumanBytes(v)
	}
	return a
}

// durability classifies how InnoDB flushes its redo log at commit.
func durability(settings map[string]string) (db.Durability, string) {
	if db.Setting(settings, "innodb_flush_method") == "nosync" {
		return db.NoFsync, "innodb_flush_method=nosync"
	}
	switch db.Setting(settings, "innodb_flush_log_at_trx_commit") {
	case "1":
		detail := "innodb_flush_log_at_trx_commit=1"
		if sb := db.Setting(settings, "sync_binlog"); db.Setting(settings, "log_bin") == "on" && sb != "1" {
			detail += ", binary log not synced at commit (sync_binlog=" + sb + ")"
		}
		return db.DurableAtCommit, detail
	case "2":
		return db.GroupCommit, "innodb_flush_log_at_trx_commit=2 (written at commit, synced about once a second)"
	case "0":
		return db.Async, "innodb_flush_log_at_trx_commit=0"
	}
	return db.DurabilityUnknown, ""
}

// isLocal says whether target asks for a private MariaDB of the local
// install: started for the command, fresh and empty, removed at exit.
func isLocal(target string) bool { return strings.HasPrefix(target, Local) }
