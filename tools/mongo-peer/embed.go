// Package mongopeer carries the sources of docbench's MongoDB wire-protocol
// peer for tests (mongo-java-server 1.47.0 with an in-memory backend that
// mongo-driver v2.9 accepts), so that a docbench binary can build it with
// Maven wherever it runs: see internal/server/servertest.StartMongoPeer.
//
// It is a protocol peer, never a performance reference.
package mongopeer

import "embed"

// Sources are pom.xml and src/, the Maven project that builds the runnable
// jar target/mongo-peer-jar-with-dependencies.jar.
//
//go:embed pom.xml src
var Sources embed.FS

// Jar is the path of the runnable jar below the project directory after
// `mvn package`.
const Jar = "target/mongo-peer-jar-with-dependencies.jar"
