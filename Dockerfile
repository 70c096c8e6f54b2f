# docbench container image: the load generator of a sharded run on
# Kubernetes (docbench kube job). Build:
#   docker build --build-arg VERSION=v1.2.3 -t ghcr.io/docbench/docbench:v1.2.3 .
#
# SQLite is the C library (mattn/go-sqlite3), so the binary is built with
# cgo and linked statically against glibc (netgo and osusergo keep glibc's
# NSS out of it; SQLite's extension loading, which needs dlopen, is left
# out). The result runs on a distroless image with no libc, as a non-root
# user (uid 65532, as `docbench kube job` declares).

FROM golang:1.26-bookworm AS build
ARG VERSION=dev
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=1 go build -trimpath \
      -tags 'osusergo netgo sqlite_omit_load_extension' \
      -ldflags "-s -w -linkmode external -extldflags -static -X github.com/docbench/docbench/internal/cli.Version=${VERSION}" \
      -o /out/docbench ./cmd/docbench \
 && /out/docbench version

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/docbench /usr/local/bin/docbench
USER 65532:65532
ENTRYPOINT ["docbench"]
CMD ["--help"]
