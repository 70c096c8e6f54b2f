package server

import "github.com/docbench/docbench/internal/server/proc"

// Owned gives the servers to the checks of proctest.
func (p *Postgres) Owned() *proc.Owned { return &p.own }

// Owned gives the servers to the checks of proctest.
func (m *MariaDB) Owned() *proc.Owned { return &m.own }
