package server

import (
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// PostgresVersions are the zonky versions docbench knows, one per major
// version, each the newest minor on Maven Central
// (io.zonky.test.postgres:embedded-postgres-binaries-*, maven-metadata.xml).
// Like DefaultPostgresVersion, each is downloaded once and checked against
// its published SHA-1.
var PostgresVersions = []string{
	"9.6.24", "10.23.0", "11.22.1", "12.22.0", "13.23.0",
	"14.24.0", "15.19.0", "16.15.0", "17.11.0", DefaultPostgresVersion,
}

// PostgresMajors lists the major versions of PostgresVersions ("9.6, 10, …, 18").
func PostgresMajors() string {
	m := make([]string, len(PostgresVersions))
	for i, v := range PostgresVersions {
		m[i] = majorOf(v)
	}
	return strings.Join(m, ", ")
}

// ResolvePostgresVersion turns a version a user names into a zonky
// version: "" is DefaultPostgresVersion, a major ("16", "9.6") the newest
// minor docbench knows ("16.15.0"), a full version of a known major
// ("13.22.0", "9.6.20") itself, pinned. Anything else is an error saying
// which versions are known.
func ResolvePostgresVersion(v string) (string, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return DefaultPostgresVersion, nil
	}
	for _, k := range PostgresVersions {
		if v == k || v == majorOf(k) {
			return k, nil
		}
	}
	f := strings.Split(v, ".")
	numeric := len(f) == 3
	for _, p := range f {
		if _, err := strconv.ParseUint(p, 10, 16); err != nil {
			numeric = false
		}
	}
	if numeric {
		for _, k := range PostgresVersions {
			if majorOf(k) == majorOf(v) {
				return v, nil
			}
		}
	}
	return "", fmt.Errorf("PostgreSQL %q is not a version docbench knows: a major version (%s) or a full one of those (e.g. %s)",
		v, PostgresMajors(), PostgresVersions[4])
}

// initdbOptions are initdbArgs as the initdb of version accepts them:
// --no-instructions is PostgreSQL 14's, --no-sync was --nosync before 10.
func initdbOptions(version string) []string {
	major := majorNumber(version)
	if major >= 14 {
		return initdbArgs
	}
	var out []string
	for _, a := range initdbArgs {
		switch {
		case a == "--no-instructions":
		case a == "--no-sync" && major < 10:
			out = append(out, "--nosync")
		default:
			out = append(out, a)
		}
	}
	return out
}

// majorNumber is the first component of version (9 for "9.6.24"), 0 when
// it is not a number.
func majorNumber(version string) int {
	n, _ := strconv.Atoi(strings.SplitN(version, ".", 2)[0])
	return n
}

// postmasterListening reports whether postmaster.pid in dataDir is pid's
// and names its listen address (line 6): before PostgreSQL 10 the file
// has no status line, and this is as far as it tells.
func postmasterListening(dataDir string, pid int) bool {
	b, err := os.ReadFile(filepath.Join(dataDir, "postmaster.pid"))
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return len(lines) >= 6 && strings.TrimSpace(lines[0]) == strconv.Itoa(pid) && strings.TrimSpace(lines[5]) != ""
}

// acceptsConnections says whether the server on 127.0.0.1:port lets user
// postgres in (trust authentication), as pg_isready would: its answer to a
// startup message is an authentication message, not "the database system
// is starting up".
func acceptsConnections(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(time.Second))
	params := "user\x00postgres\x00database\x00postgres\x00\x00"
	msg := binary.BigEndian.AppendUint32(nil, uint32(8+len(params)))
	msg = binary.BigEndian.AppendUint32(msg, 3<<16) // protocol 3.0
	if _, err := c.Write(append(msg, params...)); err != nil {
		return false
	}
	var kind [1]byte
	if _, err := io.ReadFull(c, kind[:]); err != nil || kind[0] != 'R' {
		return false
	}
	c.Write([]byte{'X', 0, 0, 0, 4}) // Terminate
	return true
}
