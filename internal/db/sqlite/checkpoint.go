package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"sync"
	"time"

	sqlite3 "github.com/mattn/go-sqlite3"
)

// SQLite in WAL mode copies the WAL back into the database file at a
// checkpoint. By default (sqlite.checkpoint=auto) the connection whose
// commit takes the WAL past 1000 frames does it, inside that commit: a
// worker's operation then holds a checkpoint's copying and fsyncs, and
// those stalls set a p99. sqlite.checkpoint=background is what servers
// built on SQLite do instead: automatic checkpoints off on every
// connection, and a connection of docbench's own that checkpoints the WAL
// on a timer, beside the workers.

// driverNoAutoCheckpoint is the sqlite3 driver with automatic checkpoints
// off on every connection it opens.
const driverNoAutoCheckpoint = "sqlite3-docbench-no-autocheckpoint"

func init() {
	sql.Register(driverNoAutoCheckpoint, &sqlite3.SQLiteDriver{ConnectHook: func(c *sqlite3.SQLiteConn) error {
		// Through the interface: a build without cgo has a stub connection
		// (that never opens) with no Exec.
		e, ok := any(c).(driver.ExecerContext)
		if !ok {
			return errors.New("sqlite3: this build cannot execute statements (built without cgo)")
		}
		_, err := e.ExecContext(context.Background(), "PRAGMA wal_autocheckpoint = 0", nil)
		return err
	}})
}

// checkpointEvery is the background checkpointer's period. SQLite's own
// threshold, 1000 frames, is reached some 20 times a second by a
// workload of a few thousand updates a second on this project's machines;
// 50 ms checkpoints as often there.
const checkpointEvery = 50 * time.Millisecond

// catchUp bounds the PASSIVE checkpoints one tick runs back to back while
// writers commit during the copy.
const catchUp = 8

// restartFrames is the WAL length at which a tick ends with a RESTART
// checkpoint. A PASSIVE checkpoint copies frames but never makes the WAL
// start again from its beginning: that needs a moment when every frame is
// copied and no reader is still on an older one, which a steady stream of
// writes and reads seldom leaves. RESTART waits for the writers of the
// moment, holds new ones (they wait in SQLite's busy handler) until it has
// copied the last frames, and makes the next write start the WAL afresh.
// 10,000 frames (40 MB at 4 kB pages) is where Litestream's earlier
// releases forced a RESTART checkpoint (later ones wait for about 500 MB
// and TRUNCATE); with PASSIVE checkpoints keeping up, the RESTART has few
// frames left to copy. It holds writers for milliseconds, and a writer
// that finds the lock taken sleeps 1, 2, 5, 10, 15 ms in SQLite's busy
// handler before it tries again: those stalls show at the p99.9.
const restartFrames = 10000

// checkpointer runs PRAGMA wal_checkpoint(PASSIVE) on a connection of its
// own every checkpointEvery until stopped, and RESTART past restartFrames.
// PASSIVE takes no lock that a reader or a writer waits for.
type checkpointer struct {
	stop, done chan struct{}

	mu       sync.Mutex
	n        int           // checkpoints that copied frames
	spent    time.Duration // their time
	restarts int           // RESTART checkpoints among them
	err      error         // the first error; the checkpointer stops at it

	wmu *writeLock // the sessions' (sqlite.writes=serialized), or nil
}

// startCheckpointer starts the background checkpointer on a connection of
// db's; wmu, when not nil, is the sessions' write lock (sqlite.writes=
// serialized), which a RESTART takes so that writers queue on it rather
// than sleep in SQLite's busy handler.
func startCheckpointer(ctx context.Context, db *sql.DB, wmu *writeLock) (*checkpointer, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var passive, restart *sql.Stmt
	if passive, err = conn.PrepareContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)"); err == nil {
		restart, err = conn.PrepareContext(ctx, "PRAGMA wal_checkpoint(RESTART)")
	}
	if err != nil {
		conn.Close()
		return nil, err
	}
	c := &checkpointer{stop: make(chan struct{}), done: make(chan struct{}), wmu: wmu}
	go c.run(conn, passive, restart)
	return c, nil
}

func (c *checkpointer) run(conn *sql.Conn, passive, restart *sql.Stmt) {
	defer close(c.done)
	defer conn.Close()
	defer passive.Close()
	defer restart.Close()
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	var lastLog, lastCopied int64 // the previous call's WAL frames and frames copied
	// one runs a checkpoint and records it when it copied frames.
	one := func(stmt *sql.Stmt, isRestart bool) (busy, log, copied int64, err error) {
		start := time.Now()
		if err = stmt.QueryRow().Scan(&busy, &log, &copied); err != nil {
			return
		}
		d := time.Since(start)
		if log != lastLog || copied != lastCopied {
			c.mu.Lock()
			c.n++
			c.spent += d
			if isRestart {
				c.restarts++
			}
			c.mu.Unlock()
		}
		lastLog, lastCopied = log, copied
		return
	}
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		var busy, log, copied int64
		var err error
		for range catchUp {
			if busy, log, copied, err = one(passive, false); err != nil || busy != 0 || copied >= log {
				break
			}
		}
		if err == nil && log >= restartFrames {
			if err = c.wmu.lock(context.Background()); err == nil {
				_, _, _, err = one(restart, true)
				c.wmu.unlock()
			}
		}
		if err != nil {
			c.mu.Lock()
			c.err = err
			c.mu.Unlock()
			return
		}
	}
}

// figures returns the checkpoints that copied frames so far, their time,
// how many of them were RESTART checkpoints, and the error that stopped
// the checkpointer.
func (c *checkpointer) figures() (n int, spent time.Duration, restarts int, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n, c.spent, c.restarts, c.err
}

// close stops the checkpointer and waits for it.
func (c *checkpointer) close() {
	close(c.stop)
	<-c.done
}
