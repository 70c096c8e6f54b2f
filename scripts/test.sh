#!/usr/bin/env bash
# Runs every docbench test against real servers. Installs what the tests need
# when it is missing (Debian's PostgreSQL; the embedded PostgreSQL 18 is
# downloaded from Maven Central on first use), then: gofmt, go vet, staticcheck, the whole
# test suite, the race detector on the concurrent packages, and one pass of
# every benchmark so they keep compiling and running.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-test-deps.sh

unformatted=$(gofmt -l cmd internal tools)
if [[ -n $unformatted ]]; then
	echo "gofmt: these files need formatting:" >&2
	echo "$unformatted" >&2
	exit 1
fi

go vet ./...
# netio's raw I/O is Linux-only behind build tags, the private servers are
# Unix-only (on Windows they refuse to start, in one line): the rest must
# still build and vet elsewhere.
GOOS=darwin go vet ./...
GOOS=windows go vet ./...
# The MySQL 8 peer is a module of its own (./... does not reach it).
(cd tools/mysql-peer && GOWORK=off go vet ./...)
# staticcheck, pinned (as in `make lint`).
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
# CI=true makes a backend whose server cannot start fail instead of skip.
export CI=${CI:-true}
go test -count=1 -timeout 15m ./...
# The race detector over every package that starts goroutines or drives
# those that do (capacity does neither: a pure search). cli takes longest,
# about 220 s, no more than without -race: most of it waits on servers and
# on the binary, which is built without it.
go test -count=1 -race -timeout 10m ./internal/runner/ ./internal/measure/ ./internal/workload/ \
	./internal/db/netio/ ./internal/db/postgres/ ./internal/db/mysql/ ./internal/db/sqlite/ \
	./internal/db/mongodb/ ./internal/server/ ./internal/study/ ./internal/cli/
go test -count=1 -run '^$' -bench . -benchtime 1x ./... >/dev/null
echo "docbench: all tests passed"
