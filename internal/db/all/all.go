// Package all registers every backend docbench ships, by blank import.
package all

import (
	_ "github.com/docbench/docbench/internal/db/mongodb"  // mongodb://
	_ "github.com/docbench/docbench/internal/db/mysql"    // mysql://, mariadb://, mariadb:local
	_ "github.com/docbench/docbench/internal/db/null"     // null:
	_ "github.com/docbench/docbench/internal/db/postgres" // postgres://, postgres:embedded
	_ "github.com/docbench/docbench/internal/db/sqlite"   // sqlite:PATH
)
