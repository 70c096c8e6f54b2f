# Conveniences; the README's commands are the contract.
.PHONY: build static test quickstart bench lint

# staticcheck is pinned: the same findings on every machine.
STATICCHECK = go run honnef.co/go/tools/cmd/staticcheck@v0.8.2

build:
	go build -buildvcs=auto -o docbench ./cmd/docbench

# The Dockerfile's build: one static binary (cgo SQLite linked in).
static:
	CGO_ENABLED=1 go build -trimpath -tags 'osusergo netgo sqlite_omit_load_extension' \
	  -ldflags '-s -w -linkmode external -extldflags -static' -o docbench ./cmd/docbench

test:
	bash scripts/test.sh

quickstart:
	go run ./cmd/docbench quickstart

bench:
	go test -run '^$$' -bench . -benchmem ./...

lint:
	@out=$$(gofmt -l cmd internal tools); if [ -n "$$out" ]; then echo "gofmt: these files need formatting:"; echo "$$out"; exit 1; fi
	go vet ./...
	cd tools/mysql-peer && GOWORK=off go vet ./...
	$(STATICCHECK) ./...
