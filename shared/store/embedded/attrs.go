package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// rangeChunk and rangeChunkBytes bound what one read transaction of a range copies out:
// a long scan does not hold one transaction (which would keep a writer from growing the
// file), and a chunk's copy stays a few megabytes.
const (
	rangeChunk      = 4096
	rangeChunkBytes = 4 << 20
)

// rangeChunkVisits bounds the items one transaction visits when a test leaves most of them
// behind (a variable for the tests, which cross it with a few thousand items).
var rangeChunkVisits = 4 * rangeChunk

// rangeBufs holds the chunk buffers of rangeRaw.
var rangeBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// RangeAttrs calls fn with the string attributes names of every item q selects that keep
// takes (nil takes all), in q's order, without building the items (store.AttrRanger): the
// views fn sees are of the chunk's copy of the items' bytes, valid during the call. keep
// sees the views inside the read transaction, of the table's own memory: an item it refuses
// is not copied. q.Limit is not applied: every item in range is visited.
func (db *DB) RangeAttrs(ctx context.Context, q store.Query, names []string, keep func(vals []store.AttrView) bool, fn func(vals []store.AttrView) error) error {
	vals := make([]store.AttrView, len(names))
	var test func(v []byte) bool
	if keep != nil {
		test = func(v []byte) bool {
			// An item whose attributes do not read is kept: fn's reading reports it.
			return attrViews(v, names, vals) != nil || keep(vals)
		}
	}
	return db.rangeRaw(ctx, q, test, func(v []byte) error {
		if err := attrViews(v, names, vals); err != nil {
			return err
		}
		return fn(vals)
	})
}

// RangeItems calls fn with the attributes of every item q selects, in q's order, without a
// map per item (store.ItemRanger). q.Limit is not applied.
func (db *DB) RangeItems(ctx context.Context, q store.Query, fn func(attrs []store.Attr) error) error {
	var attrs []store.Attr
	return db.rangeRaw(ctx, q, nil, func(v []byte) error {
		var err error
		if attrs, err = decodeAttrs(v, attrs[:0]); err != nil {
			return err
		}
		return fn(attrs)
	})
}

// rangeRaw calls fn with the encoded bytes of every item q selects that keep takes (nil takes
// all; keep runs inside the read transaction and must not use the store), in q's order. Items are
// copied out of a read transaction a chunk at a time, and fn is called after the transaction
// ends: fn may use the store (a read or a write inside a bbolt read transaction of the same
// goroutine can deadlock with a writer that must grow the file). The bytes are valid only
// during the call: one buffer holds each chunk in turn.
func (db *DB) rangeRaw(ctx context.Context, q store.Query, keep func(v []byte) bool, fn func(v []byte) error) error {
	p, err := planQuery(q)
	if err != nil {
		return fmt.Errorf("embedded: range %s: %w", q.PK, err)
	}
	// One buffer for every chunk, from a pool: it grows to a chunk's size (at most
	// rangeChunkBytes and one item) and is reused by later ranges (a search runs several at
	// once).
	buf := rangeBufs.Get().(*[]byte)
	defer rangeBufs.Put(buf)
	arena := (*buf)[:0]
	defer func() { *buf = arena[:0] }()
	ends := make([]int, 0, rangeChunk)
	for {
		var resume []byte
		arena, ends = arena[:0], ends[:0]
		err := db.bolt.View(func(tx *bolt.Tx) error {
			items := tx.Bucket(bucketItems)
			bucket := items
			if p.ix != nil {
				bucket = tx.Bucket(p.ix.bucket)
			}
			c := bucket.Cursor()
			visited := 0
			for k, v := p.first(c); k != nil; k, v = p.next(c) {
				if len(ends) == rangeChunk || len(arena) >= rangeChunkBytes || visited == rangeChunkVisits {
					resume = bytes.Clone(k)
					return nil
				}
				visited++
				if p.ix != nil {
					if v = items.Get(v); v == nil {
						return fmt.Errorf("index %s entry %q points to no item", p.ix.name, k)
					}
				}
				if keep != nil && !keep(v) {
					continue
				}
				arena = append(arena, v...)
				ends = append(ends, len(arena))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("embedded: range %s: %w", q.PK, err)
		}
		start := 0
		for _, end := range ends {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := fn(arena[start:end:end]); err != nil {
				return err
			}
			start = end
		}
		if resume == nil {
			return nil
		}
		// Resume at the key not visited yet: it is the next one's bound.
		if p.descending {
			p.hi = append(resume, 0)
		} else {
			p.lo = resume
		}
	}
}

// decodeAttrs appends the attributes of the encoded item b to attrs: decodeItem without the
// map (one copy of b, of which the names and strings are slices).
func decodeAttrs(b []byte, attrs []store.Attr) ([]store.Attr, error) {
	if len(b) > 0 && b[0] == '{' {
		it, err := decodeItemJSON(b)
		if err != nil {
			return nil, err
		}
		for k, v := range it {
			attrs = append(attrs, store.Attr{Name: k, Value: v})
		}
		return attrs, nil
	}
	if len(b) == 0 || b[0] != itemFormat2 {
		return nil, fmt.Errorf("decode item: %w: unknown encoding", errCorrupt)
	}
	d := decoder{s: string(b), i: 1, unsized: true}
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		return nil, fmt.Errorf("decode item: %w", errCorrupt)
	}
	for range n {
		k := d.str()
		attrs = append(attrs, store.Attr{Name: k, Value: d.value(0)})
	}
	if d.err != nil || d.i != len(d.s) {
		return nil, fmt.Errorf("decode item: %w", errCorrupt)
	}
	return attrs, nil
}

// attrViews fills vals with the string attributes names of the encoded item b: views of
// b's bytes in format 2, copies from a decoded item in format 1.
func attrViews(b []byte, names []string, vals []store.AttrView) error {
	clear(vals)
	if len(b) > 0 && b[0] == '{' {
		it, err := decodeItemJSON(b)
		if err != nil {
			return err
		}
		for i, name := range names {
			vals[i].S, vals[i].OK = it[name].(string)
		}
		return nil
	}
	if len(b) == 0 || b[0] != itemFormat2 {
		return fmt.Errorf("decode item: %w: unknown encoding", errCorrupt)
	}
	d := rawDecoder{b: b, i: 1}
	n := d.uvarint()
	for range n {
		name := d.bytes()
		at := -1
		for i, want := range names {
			if string(name) == want {
				at = i
				break
			}
		}
		if at >= 0 && d.i < len(d.b) && d.b[d.i] == tagString {
			d.i++
			s := d.bytes()
			vals[at] = store.AttrView{S: view(s), OK: true}
			continue
		}
		d.skip(0)
	}
	if d.bad || d.i != len(d.b) {
		return fmt.Errorf("decode item: %w", errCorrupt)
	}
	return nil
}

// view is b as a string without a copy: b must not change while the string is in use.
func view(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// rawDecoder walks an encoded item without building its values (decoder's twin on bytes).
type rawDecoder struct {
	b   []byte
	i   int
	bad bool
	// size is the store.ItemSize of the values skipped, numbers counted only when sized.
	size  int
	sized bool
}

func (d *rawDecoder) fail() { d.bad, d.i = true, len(d.b) }

func (d *rawDecoder) uvarint() uint64 {
	x, ok := readUvarint(d.b, &d.i)
	if !ok {
		d.fail()
	}
	return x
}

func (d *rawDecoder) bytes() []byte {
	n := d.uvarint()
	if n > uint64(len(d.b)-d.i) {
		d.fail()
		return nil
	}
	s := d.b[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

// skip passes over one value.
func (d *rawDecoder) skip(depth int) {
	if d.i >= len(d.b) || depth > maxDepth {
		d.fail()
		return
	}
	tag := d.b[d.i]
	d.i++
	switch tag {
	case tagNull, tagFalse, tagTrue:
		d.size++
	case tagString:
		d.size += len(d.bytes())
	case tagInt:
		u := d.uvarint()
		if d.sized {
			d.size += store.IntSize(int64(u>>1) ^ -int64(u&1))
		}
	case tagFloat:
		if len(d.b)-d.i < 8 {
			d.fail()
			return
		}
		if d.sized {
			d.size += store.FloatSize(math.Float64frombits(binary.LittleEndian.Uint64(d.b[d.i:])))
		}
		d.i += 8
	case tagList:
		n := d.uvarint()
		if n > uint64(len(d.b)-d.i) {
			d.fail()
			return
		}
		d.size += 3 + int(n)
		for range n {
			d.skip(depth + 1)
		}
	case tagMap:
		n := d.uvarint()
		if n > uint64(len(d.b)-d.i) {
			d.fail()
			return
		}
		d.size += 3
		for range n {
			d.size += 1 + len(d.bytes())
			d.skip(depth + 1)
		}
	default:
		d.fail()
	}
}
