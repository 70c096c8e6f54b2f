package servertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"time"

	"github.com/docbench/docbench/internal/server/proc"
	mongopeer "github.com/docbench/docbench/tools/mongo-peer"
)

// The MongoDB wire-protocol peer is mongo-java-server 1.47.0 with an
// in-memory backend, started from the tiny launcher in tools/mongo-peer,
// whose sources are compiled into the test binaries. No mongod can be
// installed on the machines docbench is developed on; the peer lets the
// MongoDB adapter be tested against a real wire-protocol server. It is a
// protocol peer, never a performance reference.
//
// Its runtime directories are os.TempDir()/docbench-mongo-*.
var mongoPeers = peerKind{
	name:    "MongoDB peer",
	pattern: "docbench-mongo-*",
	grace:   10 * time.Second,
	mark:    func(dir string) string { return peerMarker + dir + "\x00" },
}

// peerMarker, followed by the runtime directory, is on the MongoDB peer's
// command line, so that stale cleanup kills only peers it started.
const peerMarker = "-Ddocbench.rundir="

// MongoPeerOptions configures a MongoDB wire-protocol peer.
type MongoPeerOptions struct {
	// Log receives progress messages (the first build of the jar); may be nil.
	Log io.Writer
}

// MongoPeer is a running MongoDB wire-protocol peer (mongo-java-server, in
// memory), owned by this process: it listens on 127.0.0.1 only, has no
// authentication, and dies with us (parent-death signal, and it exits when
// its standard input, a pipe from us, closes). Stop it with Stop.
type MongoPeer struct {
	URL        string // mongodb://127.0.0.1:PORT/?directConnection=true
	Jar        string // the runnable jar (in the cache)
	*stdinPeer        // Port, LogFile; Kill, Stop
}

// StartMongoPeer starts a private MongoDB wire-protocol peer on a free
// loopback port. On first use it builds the peer's jar with Maven (`mvn -q
// -B package`, needing Java 17+, Maven and Maven Central) and caches it; when
// that or the start fails, the error starts "MongoDB peer unavailable:".
func StartMongoPeer(ctx context.Context, o MongoPeerOptions) (*MongoPeer, error) {
	if err := proc.Supported(); err != nil {
		return nil, mongoPeers.unavailable(err)
	}
	CleanStaleMongoPeers()
	java, err := javaBinary()
	if err != nil {
		return nil, mongoPeers.unavailable(err)
	}
	jar, err := MongoPeerJar(ctx, o.Log)
	if err != nil {
		return nil, mongoPeers.unavailable(err)
	}
	// The launcher binds port 0 and reports the port it got: no race with
	// other processes picking "free" ports.
	p, err := mongoPeers.start(ctx, func(runDir, portFile string) *exec.Cmd {
		return exec.Command(java,
			peerMarker+runDir,
			"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
			"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", // a test server: start fast, stay small
			"-jar", jar,
			"--host", "127.0.0.1", "--port", "0", "--ready", portFile, "--exit-on-stdin-eof")
	})
	if err != nil {
		return nil, mongoPeers.unavailable(err)
	}
	url := fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", p.Port)
	return &MongoPeer{URL: url, Jar: jar, stdinPeer: p}, nil
}

// CleanStaleMongoPeers kills peers whose docbench process is gone and
// removes their runtime directories; StartMongoPeer calls it. A peer is
// killed only when its command line names its runtime directory.
func CleanStaleMongoPeers() { mongoPeers.cleanStale() }

// javaBinary finds java: $JAVA_HOME/bin/java, else java on $PATH.
func javaBinary() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if j := filepath.Join(home, "bin", "java"); proc.IsExecutableFile(j) {
			return j, nil
		}
	}
	j, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("no java on PATH (Java 17 or later; apt-get install openjdk-17-jre-headless)")
	}
	return filepath.Abs(j)
}

// MongoPeerJar returns the path of the peer's runnable jar, building it with
// Maven into the cache (next to the PostgreSQL binaries) on first use; the
// jar is rebuilt when the launcher's sources change.
func MongoPeerJar(ctx context.Context, log io.Writer) (string, error) {
	key, err := sourcesKey(mongopeer.Sources, "")
	if err != nil {
		return "", err
	}
	return cachedBuild("mongo-peer", key, "mongo-peer.jar", ".lock", log, func(dir string) error {
		return buildPeerJar(ctx, filepath.Dir(dir), filepath.Join(dir, "mongo-peer.jar"), log)
	})
}

// ansiColor matches terminal colour sequences Maven prints even with -B -q.
var ansiColor = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// buildPeerJar writes the embedded Maven project into a build directory
// under root, runs `mvn -q -B package` there, and copies the jar to jar.
func buildPeerJar(ctx context.Context, root, jar string, log io.Writer) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return errors.New("the MongoDB peer's jar is not built and there is no mvn on PATH (apt-get install maven)")
	}
	build, err := os.MkdirTemp(root, "mongo-peer-src-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(build)
	if err := os.CopyFS(build, mongopeer.Sources); err != nil {
		return fmt.Errorf("write the peer's sources: %w", err)
	}
	if log != nil {
		fmt.Fprintf(log, "building the MongoDB peer (mongo-java-server) with Maven in %s…\n", build)
	}
	cmd := exec.CommandContext(ctx, mvn, "-q", "-B", "-Dstyle.color=never", "package")
	cmd.Dir = build // the caller's environment: Maven settings, proxies, JAVA_HOME
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("build the MongoDB peer: mvn -q -B package in %s: %v:\n%s", build, err, proc.Tail(ansiColor.ReplaceAll(out, nil), 15))
	}
	if err := proc.CopyFile(filepath.Join(build, filepath.FromSlash(mongopeer.Jar)), jar, 0o644); err != nil {
		return fmt.Errorf("build the MongoDB peer: %w", err)
	}
	return nil
}
