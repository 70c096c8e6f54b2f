package mongodb

import (
	"strings"

	"github.com/docbench/docbench/internal/db"
)

// audit classifies a MongoDB target from its recorded write concern (w,
// journal), server (the protocol peer is no reference) and WiredTiger cache
// size, and its layout (the _id key, the secondary indexes).
func audit(settings, layout map[string]string) db.Audit {
	a := db.NewAudit()
	w, j := db.Setting(settings, "w"), db.Setting(settings, "journal")
	switch {
	case j == "true":
		a.Durability, a.DurabilityDetail = db.DurableAtCommit, "write concern j=true, w="+w
	case j == "false" || w == "0":
		a.Durability, a.DurabilityDetail = db.Async, "write concern w="+w+" without j: journaled at the commit interval"
	default:
		a.Durability, a.DurabilityDetail = db.Async, "write concern w="+w+", journal="+j+" (server default: journaled at the commit interval)"
	}
	a.KeyIndex, a.KeyIndexDetail = db.KeyIDIndex, layout["key"]
	if v := layout["indexes"]; v != "" {
		a.SecondaryIndexes = v
	}
	a.Compression = "WiredTiger block compression (server default snappy)"
	if v := settings["wiredTigerCacheSizeBytes"]; v != "" {
		a.Memory = "WiredTiger cache=" + db.HumanBytes(v)
	}
	if strings.Contains(settings["server"], "peer") {
		a.Reference = settings["server"]
		a.Compression = "none (protocol peer)"
	}
	return a
}
