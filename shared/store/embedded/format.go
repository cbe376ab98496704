package embedded

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"

	bolt "go.etcd.io/bbolt"
)

// The store format is a marker in the file (bucket "meta", key "format"), so that a data
// directory says how its items are encoded:
//
//	1 (no marker)  items as JSON text (builds before issue 23)
//	2              items in the binary encoding of codec.go
//
// Opening a format-1 file migrates it in place (each item re-encoded, then the marker
// written, in one transaction: an interrupted migration leaves format 1, and running it again
// is the same migration). A file of a format newer than this build knows is refused with what
// to do, instead of being read wrongly. Older builds do not read format 2 ("decode item:
// invalid character"): docs/PERFORMANCE.md says so.
const storeFormat = 2

var (
	bucketMeta = []byte("meta")
	keyFormat  = []byte("format")
)

// ErrNewerFormat is the refusal of a data file written by a newer build.
var ErrNewerFormat = errors.New("data file written by a newer build")

// checkFormat migrates an older file to storeFormat or refuses a newer one; it runs in the
// transaction that creates the buckets.
func checkFormat(tx *bolt.Tx, path string) error {
	meta, err := tx.CreateBucketIfNotExists(bucketMeta)
	if err != nil {
		return err
	}
	v := meta.Get(keyFormat)
	format := 1
	if v != nil {
		if format, err = strconv.Atoi(string(v)); err != nil {
			return fmt.Errorf("store format marker %q: %w", v, err)
		}
	}
	switch {
	case format == storeFormat:
		return nil
	case format > storeFormat:
		return fmt.Errorf("%w: %s holds store format %d and this build reads format %d at most: "+
			"run a build at least as new as the one that wrote it, or start afresh with another DATA_DIR "+
			"(or `make distclean`, which deletes the local data)", ErrNewerFormat, path, format, storeFormat)
	}
	if err := migrateItems(tx.Bucket(bucketItems)); err != nil {
		return fmt.Errorf("migrate %s from store format %d to %d: %w", path, format, storeFormat, err)
	}
	return meta.Put(keyFormat, []byte(strconv.Itoa(storeFormat)))
}

// migrateItems re-encodes every item still in JSON (format 1) in the binary encoding. Keys
// are collected first: bbolt's cursor must not run over a bucket being written.
func migrateItems(items *bolt.Bucket) error {
	var keys [][]byte
	err := items.ForEach(func(k, v []byte) error {
		if len(v) > 0 && v[0] == '{' {
			keys = append(keys, bytes.Clone(k))
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, k := range keys {
		it, err := decodeItem(items.Get(k))
		if err != nil {
			return fmt.Errorf("item %q: %w", k, err)
		}
		v, err := encodeItem(it)
		if err != nil {
			return err
		}
		if err := items.Put(k, v); err != nil {
			return err
		}
	}
	return nil
}
