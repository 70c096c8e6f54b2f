package sqlite

import "github.com/docbench/docbench/internal/db"

// audit classifies a SQLite target from its recorded pragmas (synchronous,
// journal_mode, cache_size) and layout (the secondary indexes; the key is
// always the primary key).
func audit(settings, layout map[string]string) db.Audit {
	a := db.NewAudit()
	a.Durability, a.DurabilityDetail = durability(settings)
	a.KeyIndex, a.KeyIndexDetail = db.KeyPrimaryBtree, layout["key"]
	if v := layout["secondary_indexes"]; v != "" {
		a.SecondaryIndexes = v
	}
	if v := settings["cache_size"]; v != "" {
		a.Memory = "cache_size=" + v
	}
	return a
}

// durability classifies PRAGMA synchronous in the journal mode in effect.
func durability(settings map[string]string) (db.Durability, string) {
	sync, jm := db.Setting(settings, "synchronous"), db.Setting(settings, "journal_mode")
	switch {
	case sync == "off":
		return db.NoFsync, "synchronous=off"
	case sync == "full" || sync == "extra":
		return db.DurableAtCommit, "synchronous=" + sync + ", journal_mode=" + jm
	case sync == "normal" && jm == "wal":
		return db.GroupCommit, "synchronous=normal in WAL mode: synced at checkpoints"
	case sync == "normal":
		return db.DurableAtCommit, "synchronous=normal, journal_mode=" + jm
	}
	return db.DurabilityUnknown, ""
}
