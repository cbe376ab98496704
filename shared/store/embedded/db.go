// Package embedded is the store.Table adapter over bbolt: one file, no server, the default
// store of the local host and of the tests. It keeps DynamoDB's semantics as the port
// documents them (key order, sparse GSIs, conditions, limits), which the conformance suite in
// storetest holds it to.
//
// Layout inside bbolt: the bucket "items" maps an encoded primary key to the item (binary,
// codec.go; the file's format marker in the bucket "meta", format.go),
// and one bucket per GSI maps an encoded index key to the encoded primary key of its item.
// Keys are encoded so that bbolt's byte order within a partition is DynamoDB's sort-key order
// (see key.go).
package embedded

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// Options tune a DB.
type Options struct {
	// OnCommit, when set, is called after every write transaction that changed items, with
	// the items it changed: the local host's stand-in for DynamoDB Streams. Calls come one
	// at a time in commit order. A write that changes nothing (a delete of an absent item,
	// a put of an identical item) produces no change, as it produces no stream record.
	//
	// OnCommit may itself write to the DB; the changes of those writes are delivered after it
	// returns. So a call may run on another goroutine than the write it reports, and after
	// that write has returned.
	OnCommit func(changes []Change)
}

// Change is one item changed by a write: Old is nil for a create, New is nil for a delete.
// Both are copies the receiver may keep and mutate.
type Change struct {
	Old, New store.Item
}

// DB is a store.Table in one bbolt file. It is safe for concurrent use.
type DB struct {
	bolt     *bolt.DB
	onCommit func([]Change)
	remove   string // file to remove on Close (OpenMemory)

	// commitMu makes commit order and queue order the same; bbolt serialises writers
	// anyway, so it costs no concurrency.
	commitMu   sync.Mutex
	queueMu    sync.Mutex
	queue      [][]Change
	delivering bool
}

var _ store.Table = (*DB)(nil)

// Open opens (or creates) the database file at path.
func Open(path string, opts Options) (*DB, error) {
	return open(path, opts, false)
}

// OpenMemory opens a database for tests: a temporary file written without fsync and
// removed on Close.
func OpenMemory() (*DB, error) {
	f, err := os.CreateTemp("", "embedded-*.db")
	if err != nil {
		return nil, fmt.Errorf("embedded: open memory: %w", err)
	}
	path := f.Name()
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("embedded: open memory: %w", err)
	}
	db, err := open(path, Options{}, true)
	if err != nil {
		os.Remove(path)
		return nil, err
	}
	db.remove = path
	return db, nil
}

func open(path string, opts Options, noSync bool) (*DB, error) {
	// A timeout turns a second process on the same file into an error instead of a hang.
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 2 * time.Second, NoSync: noSync})
	if err != nil {
		return nil, fmt.Errorf("embedded: open %s: %w", path, err)
	}
	if ready(b) {
		return &DB{bolt: b, onCommit: opts.OnCommit}, nil
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range bucketNames() {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		return checkFormat(tx, path)
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("embedded: open %s: %w", path, err)
	}
	return &DB{bolt: b, onCommit: opts.OnCommit}, nil
}

// ready reports whether the file already has every bucket and this build's format: a
// read, where making sure would be a write transaction and its fdatasync on every start of
// the local host (a third of the time it took to open the store).
func ready(b *bolt.DB) bool {
	ok := false
	_ = b.View(func(tx *bolt.Tx) error {
		for _, name := range bucketNames() {
			if tx.Bucket(name) == nil {
				return nil
			}
		}
		meta := tx.Bucket(bucketMeta)
		ok = meta != nil && string(meta.Get(keyFormat)) == strconv.Itoa(storeFormat)
		return nil
	})
	return ok
}

// Close closes the file (and removes it when it came from OpenMemory).
func (db *DB) Close() error {
	err := db.bolt.Close()
	if db.remove != "" {
		if rerr := os.Remove(db.remove); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
			err = errors.Join(err, rerr)
		}
	}
	if err != nil {
		return fmt.Errorf("embedded: close: %w", err)
	}
	return nil
}

// Get reads one item. Every read is strongly consistent, so consistent changes nothing.
func (db *DB) Get(ctx context.Context, key store.Key, consistent bool) (store.Item, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return nil, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	var it store.Item
	err := db.bolt.View(func(tx *bolt.Tx) error {
		var err error
		it, err = readItem(tx.Bucket(bucketItems), baseKey(key))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	if it == nil {
		return nil, fmt.Errorf("embedded: get %s: %w", key, store.ErrNotFound)
	}
	return it, nil
}

// write runs fn in one bbolt write transaction and hands what it changed to OnCommit.
func (db *DB) write(ctx context.Context, fn func(w *writer) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	queued, err := db.commit(fn)
	if queued {
		db.deliver()
	}
	return err
}

// itemsFill is how full the items bucket's pages are left when a write splits them. Most
// items are written in key order (a run's traces, spans and roll-ups by time), and bbolt's
// default of one half left such pages half full: a scan of the traces touched a third more
// pages than their bytes needed, and the pages it touches are most of its time. The tenth
// left free takes an item that grows in place (a trace scored later) without a split.
const itemsFill = 0.9

// commit runs the transaction and queues its changes under commitMu, so that the queue is in
// commit order; the deferred unlock keeps a panic in fn from locking out every later write.
func (db *DB) commit(fn func(w *writer) error) (queued bool, err error) {
	db.commitMu.Lock()
	defer db.commitMu.Unlock()
	var changes []Change
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		w := &writer{tx: tx, items: tx.Bucket(bucketItems), record: db.onCommit != nil}
		w.items.FillPercent = itemsFill
		if err := fn(w); err != nil {
			return err
		}
		changes = w.changes
		return nil
	})
	if err != nil || len(changes) == 0 {
		return false, err
	}
	db.queueMu.Lock()
	db.queue = append(db.queue, changes)
	db.queueMu.Unlock()
	return true, nil
}

// deliver calls OnCommit for every queued transaction. Only one goroutine delivers at a
// time; a write made by OnCommit itself finds the delivery under way and leaves its changes
// to the loop below, which is what keeps such writes from deadlocking.
func (db *DB) deliver() {
	db.queueMu.Lock()
	if db.delivering {
		db.queueMu.Unlock()
		return
	}
	db.delivering = true
	done := false
	defer func() {
		if !done { // OnCommit panicked: let the next commit deliver again
			db.queueMu.Lock()
			db.delivering = false
			db.queueMu.Unlock()
		}
	}()
	for len(db.queue) > 0 {
		changes := db.queue[0]
		db.queue = db.queue[1:]
		db.queueMu.Unlock()
		db.onCommit(changes)
		db.queueMu.Lock()
	}
	// Cleared under the same lock as the emptiness check, so no enqueued change is stranded.
	db.delivering = false
	done = true
	db.queueMu.Unlock()
}
