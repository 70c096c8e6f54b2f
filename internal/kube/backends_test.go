package kube

import (
	"strings"
	"testing"

	_ "github.com/docbench/docbench/internal/db/all" // Validate asks the backends which targets are local
)

func TestValidateRefusesLocalTargets(t *testing.T) {
	for target, local := range map[string]bool{
		"postgres:embedded": true, "mariadb:local": true, "sqlite:/tmp/x.db": true,
		"postgres://u@db:5432/x": false, "mysql://root@db:3306/x": false, "mongodb://db:27017/x": false, "null:": false,
	} {
		o := reference()
		o.Target = target
		err := o.Validate()
		if refused := err != nil && strings.Contains(err.Error(), "would run inside each pod"); refused != local {
			t.Errorf("-t %s: %v", target, err)
		}
	}
}
