package embedded

import (
	"bytes"
	"encoding/binary"

	"github.com/evalobs/evalapi/shared/store"
)

// Key encoding. A base key is uvarint(len(PK)) PK SK: the length prefix makes a partition's
// keys exactly the keys with the prefix uvarint(len(PK)) PK (no other PK can extend it), and
// within a partition the order is SK's byte order, which is DynamoDB's order of UTF-8
// strings. An index key is uvarint(len(IPK)) IPK esc(ISK) 0x00 0x01 <base key>: the index sort
// key needs a terminator because the base key follows it, and esc (0x00 -> 0x00 0xFF) keeps
// the order of sort keys that contain 0x00 or are prefixes of one another.

var bucketItems = []byte("items")

// index is one GSI of the table definition.
type index struct {
	name   string
	pk, sk string // attribute names
	bucket []byte
}

var indexes = func() []index {
	var out []index
	for _, ix := range store.TableSchema.Indexes {
		out = append(out, index{name: ix.Name, pk: ix.PartitionKey, sk: ix.SortKey, bucket: []byte("index/" + ix.Name)})
	}
	return out
}()

func indexByName(name string) (index, bool) {
	for _, ix := range indexes {
		if ix.name == name {
			return ix, true
		}
	}
	return index{}, false
}

func bucketNames() [][]byte {
	out := [][]byte{bucketItems}
	for _, ix := range indexes {
		out = append(out, ix.bucket)
	}
	return out
}

func partitionPrefix(pk string) []byte {
	b := binary.AppendUvarint(make([]byte, 0, len(pk)+2), uint64(len(pk)))
	return append(b, pk...)
}

func baseKey(k store.Key) []byte {
	return append(partitionPrefix(k.PK), k.SK...)
}

func escape(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		b = append(b, s[i])
		if s[i] == 0 {
			b = append(b, 0xFF)
		}
	}
	return b
}

func indexKey(ipk, isk string, k store.Key) []byte {
	b := escape(partitionPrefix(ipk), isk)
	b = append(b, 0x00, 0x01)
	return append(b, baseKey(k)...)
}

// indexEntry returns the item's key in ix, or nil when the item lacks either index key
// attribute (sparse index).
func indexEntry(ix index, it store.Item) []byte {
	if it == nil {
		return nil
	}
	ipk, ok1 := it[ix.pk].(string)
	isk, ok2 := it[ix.sk].(string)
	if !ok1 || !ok2 {
		return nil
	}
	return indexKey(ipk, isk, it.Key())
}

// sortBound encodes a bound on the sort key within the partition prefix: raw in the base
// table, escaped in an index. In both spaces s < t exactly when bound(s) < bound(t), and an
// entry whose sort key is >= s is >= bound(s).
func sortBound(prefix []byte, escaped bool, s string) []byte {
	b := bytes.Clone(prefix)
	if escaped {
		return escape(b, s)
	}
	return append(b, s...)
}

// successor returns the smallest byte string greater than every string with prefix p, or nil
// when there is none.
func successor(p []byte) []byte {
	b := bytes.Clone(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xFF {
			b[i]++
			return b[:i+1]
		}
	}
	return nil
}
