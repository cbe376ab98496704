package embedded

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

var _ store.RecordReader = (*DB)(nil)

// GetStored is Get, the item shown in its stored form (store.RecordReader): a record is
// decoded from its bytes with no map built.
func (db *DB) GetStored(ctx context.Context, key store.Key, _ bool) (store.StoredItem, error) {
	if err := ctx.Err(); err != nil {
		return store.StoredItem{}, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	if err := checkKey(key); err != nil {
		return store.StoredItem{}, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	var r *itemReader
	err := db.bolt.View(func(tx *bolt.Tx) error {
		v := tx.Bucket(bucketItems).Get(baseKey(key))
		if v == nil {
			return nil
		}
		var err error
		r, _, err = newItemReader(v, false)
		return err
	})
	if err != nil {
		return store.StoredItem{}, fmt.Errorf("embedded: get %s: %w", key, err)
	}
	if r == nil {
		return store.StoredItem{}, fmt.Errorf("embedded: get %s: %w", key, store.ErrNotFound)
	}
	return store.StoredFrom(r), nil
}

// BatchGetStored is BatchGet in stored form.
func (db *DB) BatchGetStored(ctx context.Context, keys []store.Key, _ bool) ([]store.StoredItem, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	if err := checkKeys(keys, nil); err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	var out []store.StoredItem
	err := db.bolt.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketItems)
		for _, k := range keys {
			v := b.Get(baseKey(k))
			if v == nil {
				continue
			}
			r, _, err := newItemReader(v, false)
			if err != nil {
				return err
			}
			out = append(out, store.StoredFrom(r))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: batch get: %w", err)
	}
	return out, nil
}

// QueryStored is Query in stored form: the same pages (sizes counted on the stored bytes),
// the same cursors.
func (db *DB) QueryStored(ctx context.Context, q store.Query) (store.StoredPage, error) {
	var page store.StoredPage
	next, err := db.query(ctx, q, func(v []byte) (int, error) {
		r, n, err := newItemReader(v, true)
		if err != nil {
			return 0, err
		}
		page.Items = append(page.Items, store.StoredFrom(r))
		return n, nil
	}, func(ix *index) store.Cursor {
		return cursorOf(page.Items[len(page.Items)-1].Item(), ix)
	})
	if err != nil {
		return store.StoredPage{}, err
	}
	page.Next = next
	return page, nil
}

// itemReader is a stored item of format 2 as a store.ItemReader: its bytes copied once out of
// the read transaction into one string, of which every name and string read is a slice.
// The item was checked whole when it was copied, so the reads need no checks of their own.
type itemReader struct {
	s   string
	b   []byte // s's bytes, read only (rawDecoder walks bytes)
	i   int
	top bool // at the item itself: the map of its attributes
	key store.Key
}

// newItemReader checks the encoded item v as decodeItem does (a corrupt item is the same
// error), finds its key and copies it. A format-1 item (JSON text) is re-encoded. size is
// the item's store.ItemSize when sized (numbers' sizes are the costly part).
func newItemReader(v []byte, sized bool) (*itemReader, int, error) {
	if len(v) > 0 && v[0] == '{' {
		it, err := decodeItemJSON(v)
		if err != nil {
			return nil, 0, err
		}
		if v, err = encodeItem(it); err != nil {
			return nil, 0, fmt.Errorf("decode item: %w", err)
		}
	}
	if len(v) == 0 || v[0] != itemFormat2 {
		return nil, 0, fmt.Errorf("decode item: %w: unknown encoding", errCorrupt)
	}
	d := rawDecoder{b: v, i: 1, sized: sized}
	n := d.uvarint()
	if n > uint64(len(v)) {
		return nil, 0, fmt.Errorf("decode item: %w", errCorrupt)
	}
	pk, sk := -1, -1 // where the key attributes' values start
	for range n {
		name := d.bytes()
		d.size += len(name)
		if d.i < len(d.b) && d.b[d.i] == tagString {
			switch string(name) {
			case store.AttrPK:
				pk = d.i
			case store.AttrSK:
				sk = d.i
			}
		}
		d.skip(0)
	}
	if d.bad || d.i != len(d.b) {
		return nil, 0, fmt.Errorf("decode item: %w", errCorrupt)
	}
	s := string(v)
	r := &itemReader{s: s, b: unsafe.Slice(unsafe.StringData(s), len(s)), top: true}
	if pk >= 0 {
		r.i = pk
		r.key.PK = r.Str()
	}
	if sk >= 0 {
		r.i = sk
		r.key.SK = r.Str()
	}
	r.i = 0
	return r, d.size, nil
}

// kinds maps the encoding's tags to the vocabulary's kinds.
var kinds = [...]store.ValueKind{
	tagNull: store.KindNull, tagFalse: store.KindBool, tagTrue: store.KindBool, tagString: store.KindString,
	tagInt: store.KindInt, tagFloat: store.KindFloat, tagList: store.KindList, tagMap: store.KindMap,
}

func (r *itemReader) Key() store.Key { return r.key }

func (r *itemReader) Rewind() { r.i, r.top = 0, true }

func (r *itemReader) Kind() store.ValueKind {
	if r.top {
		return store.KindMap
	}
	return kinds[r.s[r.i]]
}

func (r *itemReader) Bool() bool {
	t := r.s[r.i]
	r.i++
	return t == tagTrue
}

func (r *itemReader) Int() int64 {
	r.i++
	u, _ := readUvarint(r.s, &r.i)
	return int64(u>>1) ^ -int64(u&1)
}

func (r *itemReader) Float() float64 {
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b[r.i+1:]))
	r.i += 9
	return f
}

func (r *itemReader) Str() string {
	r.i++
	return r.Name()
}

func (r *itemReader) Name() string {
	n, _ := readUvarint(r.s, &r.i)
	s := r.s[r.i : r.i+int(n)]
	r.i += int(n)
	return s
}

func (r *itemReader) Len() int {
	if r.top {
		r.top, r.i = false, 0
	}
	r.i++ // the value's tag, or the item's format byte
	n, _ := readUvarint(r.s, &r.i)
	return int(n)
}

func (r *itemReader) Value() any {
	d := decoder{s: r.s, i: r.i, unsized: true}
	if !r.top {
		v := d.value(0)
		r.i = d.i
		return v
	}
	r.top = false
	d.i = 1
	n := d.uvarint()
	m := make(map[string]any, n)
	for range n {
		k := d.str()
		m[k] = d.value(0)
	}
	r.i = d.i
	return m
}

func (r *itemReader) Skip() {
	if r.top {
		r.top, r.i = false, len(r.s)
		return
	}
	d := rawDecoder{b: r.b, i: r.i}
	d.skip(0)
	r.i = d.i
}
