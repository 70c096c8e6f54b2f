package cli

import (
	"errors"
	"strings"
	"time"

	"github.com/docbench/docbench/internal/db"
	"github.com/docbench/docbench/internal/workload"
)

// markedSchema is the schema of a load with the mark its table will carry:
// the command, the time, the records of the whole load and the properties
// that shape its data.
func markedSchema(schema db.Schema, by string, wl *workload.Workload, props map[string]string) db.Schema {
	if by == "" {
		by = "docbench load"
	}
	_, n := wl.Keyspace()
	m := db.Mark{By: by, Created: time.Now(), Records: n, Properties: map[string]string{}}
	for k, v := range props {
		if dataProps[k] || strings.HasPrefix(k, "document.") {
			m.Properties[k] = v
		}
	}
	schema.Mark = m
	return schema
}

// dataProps are the properties, besides document.*, that shape the data a
// load writes.
var dataProps = map[string]bool{
	"recordcount": true, "insertstart": true, "insertcount": true, "fieldcount": true, "fieldlength": true,
	"fieldlengthdistribution": true, "fieldnameprefix": true, "insertorder": true, "layout": true, "doctype": true,
	"index": true, "secondaryindex": true,
}

// notOurs makes a table docbench did not create, or a target that cannot
// be, a usage error (exit 2).
func notOurs(err error) error {
	var no *db.ErrNotOurs
	var bad *db.BadTarget
	if errors.As(err, &no) || errors.As(err, &bad) {
		return &ExitError{Code: exitUsage, Err: err}
	}
	return err
}
