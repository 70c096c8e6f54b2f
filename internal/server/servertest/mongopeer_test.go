package servertest

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/server/proc/proctest"
)

func startPeerForTest(t *testing.T) *MongoPeer {
	t.Helper()
	return startForTest(t, "MongoDB peer", 5*time.Minute, func(ctx context.Context, log io.Writer) (*MongoPeer, error) {
		return StartMongoPeer(ctx, MongoPeerOptions{Log: log})
	})
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
	proctest.CheckStopped(t, p, p.own.Cmd.Process.Pid)
}

// TestMongoPeerStaleCleanup makes a running peer look abandoned (its owner
// PID is a dead process) and checks that CleanStaleMongoPeers kills it and
// removes its directory, and leaves a young directory without owner alone.
func TestMongoPeerStaleCleanup(t *testing.T) {
	p := startPeerForTest(t)
	proctest.CheckStaleCleanup(t, p, mongoPeers.pattern, CleanStaleMongoPeers)
}

// TestMongoPeerOwnerKilled starts a peer from a child process, SIGKILLs the
// child and checks that the peer dies with it and that the next cleanup
// removes what it left.
func TestMongoPeerOwnerKilled(t *testing.T) {
	checkOwnerKilled(t, func() (*MongoPeer, error) {
		return StartMongoPeer(context.Background(), MongoPeerOptions{})
	}, func() { startPeerForTest(t).Stop() }, CleanStaleMongoPeers)
}

// TestMongoPeerWithoutMaven: with the jar missing and no mvn, the error says
// what to install.
func TestMongoPeerWithoutMaven(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	root := t.TempDir()
	err := buildPeerJar(context.Background(), root, filepath.Join(root, "mongo-peer.jar"), nil)
	if err == nil || !strings.Contains(err.Error(), "no mvn on PATH") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v; want one line about mvn", err)
	}
}
