package server

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func startPeerForTest(t *testing.T) *MongoPeer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	began := time.Now()
	p, err := StartMongoPeer(ctx, MongoPeerOptions{Log: logWriter{t}})
	if err != nil {
		unavailable(t, err)
	}
	t.Logf("started MongoDB peer in %s at %s", time.Since(began).Round(time.Millisecond), p.URL)
	t.Cleanup(func() { p.Stop() })
	return p
}

func TestMongoPeer(t *testing.T) {
	p := startPeerForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	client, err := mongo.Connect(options.Client().ApplyURI(p.URL))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	var hello bson.M
	if err := client.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatalf("hello: %v", err)
	}
	if hello["isWritablePrimary"] != true || hello["maxWireVersion"] != int32(13) {
		t.Errorf("hello = %v: want isWritablePrimary true, maxWireVersion 13", hello)
	}
	coll := client.Database("t").Collection("c")
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "k"}, {Key: "n", Value: int32(7)}}); err != nil {
		t.Fatalf("insert through driver v2: %v", err)
	}
	var got struct{ N int32 }
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: "k"}}).Decode(&got); err != nil || got.N != 7 {
		t.Fatalf("find = %+v, %v", got, err)
	}
	client.Disconnect(ctx)

	if !strings.HasPrefix(p.Jar, mustCacheRoot(t)) {
		t.Errorf("jar %s is not in the cache %s", p.Jar, mustCacheRoot(t))
	}
	checkStopped(t, p, p.cmd.Process.Pid)
}

func mustCacheRoot(t *testing.T) string {
	root, err := cacheRoot()
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestMongoPeerStaleCleanup makes a running peer look abandoned (its owner
// PID is a dead process) and checks that CleanStaleMongoPeers kills it and
// removes its directory, and leaves a young directory without owner alone.
func TestMongoPeerStaleCleanup(t *testing.T) {
	p := startPeerForTest(t)
	checkStaleCleanup(t, p, mongoRunDirPattern, CleanStaleMongoPeers)
}

// TestMongoPeerOwnerKilled starts a peer from a child process, SIGKILLs the
// child and checks that the peer dies with it and that the next cleanup
// removes what it left.
func TestMongoPeerOwnerKilled(t *testing.T) {
	if ownerChild(func(string) (*MongoPeer, error) {
		return StartMongoPeer(context.Background(), MongoPeerOptions{})
	}) {
		return
	}
	startPeerForTest(t).Stop() // builds the jar if needed; skips or fails like the others
	child, pid, runDir := startOwnerChild(t, "1")
	killChild(child)
	if !waitGone(pid, 10*time.Second) {
		t.Errorf("peer %d survived its owner", pid)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	CleanStaleMongoPeers()
	checkGone(t, "runtime dir", runDir)
}

// TestMongoPeerWithoutMaven: with the jar missing and no mvn, the error says
// what to install.
func TestMongoPeerWithoutMaven(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	root := t.TempDir()
	err := buildPeerJar(context.Background(), root, filepath.Join(root, "mongo-peer-x"), nil)
	if err == nil || !strings.Contains(err.Error(), "no mvn on PATH") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v; want one line about mvn", err)
	}
}
