# Conveniences; the README's commands are the contract.
.PHONY: build test quickstart bench lint

build:
	go build -o docbench ./cmd/docbench

test:
	bash scripts/test.sh

quickstart:
	go run ./cmd/docbench quickstart

bench:
	go test -run '^$$' -bench . -benchmem ./...

lint:
	gofmt -l cmd internal workloads bench
	go vet ./...
