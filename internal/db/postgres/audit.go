package postgres

import (
	"cmp"
	"os"
	"strings"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/server"
)

// audit classifies a PostgreSQL target from its recorded settings (fsync,
// synchronous_commit, full_page_writes, default_toast_compression,
// shared_buffers) and layout (the key index Info describes, the column's
// compression and storage).
func audit(settings, layout map[string]string) db.Audit {
	a := db.NewAudit()
	a.Durability, a.DurabilityDetail = durability(settings)
	if fpw := db.Setting(settings, "full_page_writes"); fpw != "" {
		a.DurabilityDetail += ", full_page_writes=" + fpw
	}
	key := layout["key"]
	a.KeyIndex, a.KeyIndexDetail = keyIndex(key), key
	if kl := layout["keylookup"]; kl != "" {
		a.KeyIndexDetail += ", lookup " + kl
	}
	if v := layout["secondary_indexes"]; v != "" {
		a.SecondaryIndexes = v
	}
	a.Compression = "TOAST " + cmp.Or(layout["compression"], settings["default_toast_compression"], "pglz") + " (documents over ~2 kB)"
	if layout["storage"] == "external" {
		a.Compression = "none (STORAGE EXTERNAL)"
	}
	if v := settings["shared_buffers"]; v != "" {
		a.Memory = "shared_buffers=" + v
	}
	return a
}

// durability classifies fsync and synchronous_commit.
func durability(settings map[string]string) (db.Durability, string) {
	fsync, sc := db.Setting(settings, "fsync"), db.Setting(settings, "synchronous_commit")
	switch {
	case fsync == "off":
		return db.NoFsync, "fsync=off, synchronous_commit=" + sc
	case sc == "off":
		return db.Async, "synchronous_commit=off"
	case sc != "" && fsync != "":
		return db.DurableAtCommit, "synchronous_commit=" + sc + ", fsync=on"
	}
	return db.DurabilityUnknown, ""
}

// keyIndex classifies the key index Info describes as layout "key".
func keyIndex(key string) db.KeyIndex {
	switch {
	case strings.Contains(key, "PRIMARY KEY"):
		return db.KeyPrimaryBtree
	case strings.HasPrefix(key, "GIN"):
		return db.KeyGINDocument
	case strings.HasPrefix(key, "btree on"):
		return db.KeyExpressionBtree
	}
	return db.KeyNone
}

// isEmbedded says whether target asks for the managed server
// (postgres:embedded, postgres:embedded@VERSION).
func isEmbedded(target string) bool {
	base, _, _ := strings.Cut(target, "@")
	return strings.EqualFold(base, Embedded)
}

// dataDir: the managed server's data directory (pg.datadir: temp, a path,
// or the version's own under the cache), with its WAL; other servers'
// disks are their own.
func dataDir(target string, props map[string]string) (string, bool) {
	version, ok, err := embeddedVersion(target, props)
	if !ok || err != nil {
		return "", false
	}
	switch d := props["pg.datadir"]; d {
	case "temp":
		return os.TempDir(), true
	case "":
		return server.DefaultDataDir(version), true
	default:
		return d, true
	}
}

// ephemeral: the managed server with pg.datadir=temp is a fresh cluster
// removed at exit.
func ephemeral(target string, props map[string]string) bool {
	return isEmbedded(target) && props["pg.datadir"] == "temp"
}
