package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	mongopeer "github.com/docbench/docbench/tools/mongo-peer"
)

// The MongoDB wire-protocol peer is mongo-java-server 1.47.0 with an
// in-memory backend, started from the tiny launcher in tools/mongo-peer,
// whose sources are compiled into docbench. No mongod can be installed on
// the machines docbench is developed on; the peer lets the MongoDB adapter
// be tested against a real wire-protocol server. It is a protocol peer,
// never a performance reference.
//
// Each peer lives in its own runtime directory, os.TempDir()/docbench-mongo-*,
// holding ownerFile (the PID of the docbench that started it), peerPIDFile,
// the port file the launcher writes once it listens, and the peer's log.
const (
	mongoRunDirPattern = "docbench-mongo-*"
	peerPIDFile        = "peer.pid"
	peerPortFile       = "port"
	// peerMarker, followed by the runtime directory, is on the peer's
	// command line, so that stale cleanup kills only peers it started.
	peerMarker = "-Ddocbench.rundir="
)

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
	URL     string // mongodb://127.0.0.1:PORT/?directConnection=true
	Port    int
	Jar     string // the runnable jar (in the cache)
	LogFile string // the peer's stdout and stderr

	stdinPeer // runtime directory and java process
}

// StartMongoPeer starts a private MongoDB wire-protocol peer on a free
// loopback port. On first use it builds the peer's jar with Maven (`mvn -q
// -B package`, needing Java 17+, Maven and Maven Central) and caches it; when
// that or the start fails, the error starts "MongoDB peer unavailable:".
func StartMongoPeer(ctx context.Context, o MongoPeerOptions) (*MongoPeer, error) {
	CleanStaleMongoPeers()
	java, err := javaBinary()
	if err != nil {
		return nil, fmt.Errorf("MongoDB peer unavailable: %w", err)
	}
	jar, err := MongoPeerJar(ctx, o.Log)
	if err != nil {
		return nil, fmt.Errorf("MongoDB peer unavailable: %w", err)
	}
	p, err := startPeer(ctx, java, jar)
	if err != nil {
		return nil, fmt.Errorf("MongoDB peer unavailable: %w", err)
	}
	return p, nil
}

func startPeer(ctx context.Context, java, jar string) (_ *MongoPeer, err error) {
	runDir, err := newRunDir(mongoRunDirPattern)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			os.RemoveAll(runDir)
		}
	}()
	p := &MongoPeer{Jar: jar, stdinPeer: newStdinPeer(runDir, "MongoDB peer", 10*time.Second)}
	p.LogFile = p.logFile()
	portFile := p.portFile()
	// The launcher binds port 0 and reports the port it got: no race with
	// other processes picking "free" ports.
	cmd := exec.Command(java,
		peerMarker+runDir,
		"-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
		"-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", // a test server: start fast, stay small
		"-jar", jar,
		"--host", "127.0.0.1", "--port", "0", "--ready", portFile, "--exit-on-stdin-eof")
	port, err := p.launch(ctx, cmd, java+" -jar "+jar)
	if err != nil {
		return nil, err
	}
	p.Port = port
	p.URL = fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", port)
	return p, nil
}

// CleanStaleMongoPeers kills peers whose docbench process is gone and
// removes their runtime directories; StartMongoPeer calls it. A peer is
// killed only when its command line names its runtime directory.
func CleanStaleMongoPeers() {
	cleanStalePeers(mongoRunDirPattern, func(dir string) string { return peerMarker + dir + "\x00" })
}

// cleanStalePeers kills the test peers of runtime directories matching
// pattern whose docbench process is gone, and removes the directories. A
// peer is killed only when its command line holds mark(dir).
func cleanStalePeers(pattern string, mark func(dir string) string) {
	cleanStaleDirs(pattern, func(dir string) bool {
		if pid := readPID(filepath.Join(dir, peerPIDFile)); alive(pid) {
			cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
			if err != nil || !strings.Contains(string(cmdline), mark(dir)) {
				return false // cannot prove it is ours: leave it
			}
			killAndWait(pid, 5*time.Second)
		}
		return true
	})
}

// javaBinary finds java: $JAVA_HOME/bin/java, else java on $PATH.
func javaBinary() (string, error) {
	if home := os.Getenv("JAVA_HOME"); home != "" {
		if j := filepath.Join(home, "bin", "java"); isExecutableFile(j) {
			return j, nil
		}
	}
	j, err := exec.LookPath("java")
	if err != nil {
		return "", errors.New("no java on PATH (Java 17 or later; apt-get install openjdk-17-jre-headless)")
	}
	return filepath.Abs(j)
}

// sourcesKey hashes the launcher's sources: the cached jar is rebuilt when
// they change.
func sourcesKey() (string, error) {
	h := sha256.New()
	err := fs.WalkDir(mongopeer.Sources, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := mongopeer.Sources.ReadFile(path)
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", path, len(b))
		h.Write(b)
		return nil
	})
	return hex.EncodeToString(h.Sum(nil)[:6]), err
}

// MongoPeerJar returns the path of the peer's runnable jar, building it with
// Maven into the cache (next to the PostgreSQL binaries) on first use.
func MongoPeerJar(ctx context.Context, log io.Writer) (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	key, err := sourcesKey()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(root, "mongo-peer-"+key)
	jar := filepath.Join(dir, "mongo-peer.jar")
	if _, err := os.Stat(jar); err == nil {
		return jar, nil
	}
	unlock, err := lockCache(root)
	if err != nil {
		return "", fmt.Errorf("cache directory: %w", err)
	}
	defer unlock()
	if _, err := os.Stat(jar); err == nil {
		return jar, nil // built by another process while we waited
	}
	if err := buildPeerJar(ctx, root, dir, log); err != nil {
		return "", err
	}
	return jar, nil
}

// ansiColor matches terminal colour sequences Maven prints even with -B -q.
var ansiColor = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// buildPeerJar writes the embedded Maven project into a build directory
// under root, runs `mvn -q -B package` there, and moves the jar into dir.
// The caller holds the cache lock.
func buildPeerJar(ctx context.Context, root, dir string, log io.Writer) error {
	mvn, err := exec.LookPath("mvn")
	if err != nil {
		return errors.New("the MongoDB peer's jar is not built and there is no mvn on PATH (apt-get install maven)")
	}
	start := time.Now()
	build, err := os.MkdirTemp(root, "mongo-peer-build-*")
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
		return fmt.Errorf("build the MongoDB peer: mvn -q -B package in %s: %v:\n%s", build, err, tail(ansiColor.ReplaceAll(out, nil), 15))
	}
	tmp, err := os.MkdirTemp(root, "mongo-peer-jar-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // no-op after a successful rename
	if err := copyFile(filepath.Join(build, filepath.FromSlash(mongopeer.Jar)), filepath.Join(tmp, "mongo-peer.jar"), 0o644); err != nil {
		return fmt.Errorf("build the MongoDB peer: %w", err)
	}
	if err := os.Chmod(tmp, 0o755); err != nil { // MkdirTemp makes 0700
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		return err
	}
	if log != nil {
		fmt.Fprintf(log, "MongoDB peer built in %s: %s\n", time.Since(start).Round(time.Millisecond), filepath.Join(dir, "mongo-peer.jar"))
	}
	return nil
}
