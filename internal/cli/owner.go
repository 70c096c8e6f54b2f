package cli

import (
	"errors"

	"github.com/docbench/docbench/internal/db"
)

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
