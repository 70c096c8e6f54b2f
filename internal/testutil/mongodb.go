package testutil

import (
	"context"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/docbench/docbench/internal/server/servertest"
)

// MongoPeerKind is the kind of the MongoDB wire-protocol peer
// (mongo-java-server, in memory; see servertest.StartMongoPeer). It is a
// protocol peer, never a performance reference.
const MongoPeerKind = "mongodb:java"

func init() {
	kinds[MongoPeerKind] = starterOf(func(ctx context.Context) (*servertest.MongoPeer, error) {
		return servertest.StartMongoPeer(ctx, servertest.MongoPeerOptions{Log: os.Stderr})
	}, func(p *servertest.MongoPeer) string { return p.URL })
}

// MongoDB returns the URL of the shared MongoDB wire-protocol peer
// ("mongodb://127.0.0.1:PORT/?directConnection=true"), starting it on first
// use. Give each test its own database with FreshMongoDatabase.
func MongoDB(t testing.TB) string {
	t.Helper()
	return Server(t, MongoPeerKind)
}

// FreshMongoDatabase returns serverURL with a uniquely named database in its
// path; the database is dropped when the test ends.
func FreshMongoDatabase(t testing.TB, serverURL string) string {
	t.Helper()
	return freshDatabase(t, serverURL, nil, func(name string) error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		client, err := mongo.Connect(options.Client().ApplyURI(serverURL))
		if err != nil {
			return err
		}
		defer client.Disconnect(ctx)
		return client.Database(name).Drop(ctx)
	})
}
