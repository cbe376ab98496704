package embedded

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// Items are stored in a binary encoding chosen for decode speed (format 2, see format.go):
//
//	item   = 0x02 count:uvarint { name:str value }
//	str    = len:uvarint bytes
//	value  = 0 (null) | 1 (false) | 2 (true) | 3 str | 4 int64:varint | 5 float64:8 bytes LE
//	       | 6 count:uvarint { value } (list) | 7 count:uvarint { name:str value } (map)
//
// Every value was validated and normalised before it was written, so what is decoded is
// exactly the value written: numbers need no parsing and strings no unescaping. Format 1
// (the item as JSON text, starting with '{') is still read, so a directory that was not
// migrated yet, or an item written by an older build, decodes the same.
const (
	itemFormat2 = 0x02

	tagNull   = 0
	tagFalse  = 1
	tagTrue   = 2
	tagString = 3
	tagInt    = 4
	tagFloat  = 5
	tagList   = 6
	tagMap    = 7
)

func encodeItem(it store.Item) ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, itemFormat2)
	b = binary.AppendUvarint(b, uint64(len(it)))
	var err error
	for k, v := range it {
		b = appendStr(b, k)
		if b, err = appendValue(b, v); err != nil {
			return nil, fmt.Errorf("encode item %s: attribute %q: %w", it.Key(), k, err)
		}
	}
	return b, nil
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendValue(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, tagNull), nil
	case bool:
		if x {
			return append(b, tagTrue), nil
		}
		return append(b, tagFalse), nil
	case string:
		return appendStr(append(b, tagString), x), nil
	case int64:
		return binary.AppendVarint(append(b, tagInt), x), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(b, tagFloat), math.Float64bits(x)), nil
	case []any:
		if x == nil {
			return append(b, tagNull), nil
		}
		b = binary.AppendUvarint(append(b, tagList), uint64(len(x)))
		var err error
		for _, e := range x {
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	case map[string]any:
		if x == nil {
			return append(b, tagNull), nil
		}
		b = binary.AppendUvarint(append(b, tagMap), uint64(len(x)))
		var err error
		for k, e := range x {
			b = appendStr(b, k)
			if b, err = appendValue(b, e); err != nil {
				return nil, err
			}
		}
		return b, nil
	}
	return nil, fmt.Errorf("unsupported value type %T", v)
}

var errCorrupt = errors.New("corrupt item")

func decodeItem(b []byte) (store.Item, error) {
	it, _, err := decodeItemSized(b)
	return it, err
}

// decodeItemSized is decodeItem with the item's store.ItemSize, counted on the way (a query
// adds up its page's size, and a second walk of every item was a tenth of a roll-up read).
func decodeItemSized(b []byte) (store.Item, int, error) {
	if len(b) > 0 && b[0] == '{' {
		it, err := decodeItemJSON(b)
		return it, store.ItemSize(it), err
	}
	if len(b) == 0 || b[0] != itemFormat2 {
		return nil, 0, fmt.Errorf("decode item: %w: unknown encoding", errCorrupt)
	}
	// One string holds every string of the item: the bytes are copied once (bbolt's are
	// only valid in the transaction), and names and values are slices of it.
	d := decoder{s: string(b), i: 1}
	n := d.uvarint()
	if n > uint64(len(d.s)) {
		return nil, 0, fmt.Errorf("decode item: %w", errCorrupt)
	}
	it := make(store.Item, n)
	for range n {
		k := d.str()
		d.size += len(k)
		it[k] = d.value(0)
	}
	if d.err != nil || d.i != len(d.s) {
		return nil, 0, fmt.Errorf("decode item: %w", errCorrupt)
	}
	return it, d.size, nil
}

// maxDepth bounds nesting as DynamoDB does (32 levels), so a corrupt item cannot overflow.
const maxDepth = 40

type decoder struct {
	s    string
	i    int
	err  error
	size int // store.ItemSize of what value read so far
	// unsized skips the count of numbers' sizes (the costly part), for readers that do
	// not page by size.
	unsized bool
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.i = len(d.s)
}

func (d *decoder) uvarint() uint64 {
	x, ok := readUvarint(d.s, &d.i)
	if !ok {
		d.fail()
	}
	return x
}

// readUvarint reads the unsigned varint at *i of s and moves *i past it; false when s ends
// first or the number overflows 64 bits.
func readUvarint[S string | []byte](s S, i *int) (uint64, bool) {
	var x uint64
	var shift uint
	for *i < len(s) {
		c := s[*i]
		*i++
		if c < 0x80 {
			if shift > 63 {
				return 0, false
			}
			return x | uint64(c)<<shift, true
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, false
}

func (d *decoder) str() string {
	n := d.uvarint()
	if n > uint64(len(d.s)-d.i) {
		d.fail()
		return ""
	}
	s := d.s[d.i : d.i+int(n)]
	d.i += int(n)
	return s
}

func (d *decoder) value(depth int) any {
	if d.i >= len(d.s) || depth > maxDepth {
		d.fail()
		return nil
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagNull:
		d.size++
		return nil
	case tagFalse:
		d.size++
		return false
	case tagTrue:
		d.size++
		return true
	case tagString:
		s := d.str()
		d.size += len(s)
		return s
	case tagInt:
		u := d.uvarint()
		n := int64(u>>1) ^ -int64(u&1) // zig-zag, as binary.AppendVarint writes it
		if !d.unsized {
			d.size += store.IntSize(n)
		}
		return n
	case tagFloat:
		if len(d.s)-d.i < 8 {
			d.fail()
			return nil
		}
		var u uint64
		for j := 7; j >= 0; j-- {
			u = u<<8 | uint64(d.s[d.i+j])
		}
		d.i += 8
		f := math.Float64frombits(u)
		if !d.unsized {
			d.size += store.FloatSize(f)
		}
		return f
	case tagList:
		n := d.uvarint()
		if n > uint64(len(d.s)-d.i) {
			d.fail()
			return nil
		}
		out := make([]any, n)
		d.size += 3 + len(out)
		for j := range out {
			out[j] = d.value(depth + 1)
		}
		return out
	case tagMap:
		n := d.uvarint()
		if n > uint64(len(d.s)-d.i) {
			d.fail()
			return nil
		}
		out := make(map[string]any, n)
		d.size += 3
		for range n {
			k := d.str()
			d.size += 1 + len(k)
			out[k] = d.value(depth + 1)
		}
		return out
	}
	d.fail()
	return nil
}

// decodeItemJSON reads an item of format 1: JSON text, numbers normalised on the way.
func decodeItemJSON(b []byte) (store.Item, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("decode item: %w", err)
	}
	n, err := store.Normalize(m)
	if err != nil {
		return nil, fmt.Errorf("decode item: %w", err)
	}
	return store.Item(n.(map[string]any)), nil
}

// readItem returns the item at the encoded key k, or nil when there is none. The result is
// decoded afresh, so it is the caller's to keep.
func readItem(b *bolt.Bucket, k []byte) (store.Item, error) {
	v := b.Get(k)
	if v == nil {
		return nil, nil
	}
	return decodeItem(v)
}

// clone deep-copies a value of the vocabulary.
func clone(v any) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = clone(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = clone(e)
		}
		return out
	case store.Item:
		if x == nil {
			return store.Item(nil)
		}
		return store.Item(clone(map[string]any(x)).(map[string]any))
	}
	return v
}

func cloneItem(it store.Item) store.Item {
	return clone(it).(store.Item)
}
