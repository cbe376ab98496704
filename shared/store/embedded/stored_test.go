package embedded

import (
	"encoding/json"
	"math/rand"
	"reflect"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// The item reader shows what decodeItem builds: every method of store.ValueReader walked
// over random items (some attributes skipped), the whole item from Value, the key and
// ItemSize; format-1 items alike; a truncated or damaged item is an error, never a panic.
func TestItemReaderMatchesDecode(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	for range 2000 {
		it := randomItem(r)
		b, err := encodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		legacy, err := json.Marshal(map[string]any(it))
		if err != nil {
			t.Fatal(err)
		}
		for _, enc := range [][]byte{b, legacy} {
			rd, size, err := newItemReader(enc, true)
			if err != nil {
				t.Fatalf("%#v: %v", it, err)
			}
			if want := store.ItemSize(it); size != want {
				t.Fatalf("%#v: size %d, ItemSize %d", it, size, want)
			}
			if rd.Key() != it.Key() {
				t.Fatalf("%#v: key %v", it, rd.Key())
			}
			skip := byte('a' + r.Intn(26))
			want := store.Item{}
			for k, v := range it {
				if k[0] != skip {
					want[k] = v
				}
			}
			if got := readAll(rd, skip); !reflect.DeepEqual(got, map[string]any(want)) {
				t.Fatalf("read with %q skipped: %#v\nwant %#v", skip, got, want)
			}
			rd.Rewind()
			if got := rd.Value(); !reflect.DeepEqual(got, map[string]any(it)) {
				t.Fatalf("Value: %#v\nwant %#v", got, it)
			}
		}
		if len(b) > 1 {
			if _, _, err := newItemReader(b[:r.Intn(len(b)-1)+1], false); err == nil {
				t.Fatalf("truncated %x read", b)
			}
			damaged := append([]byte(nil), b...)
			damaged[1+r.Intn(len(b)-1)] = 0xff
			if rd, _, err := newItemReader(damaged, false); err == nil {
				readAll(rd, 0) // a damage the walk cannot see must still read without a panic
			}
		}
	}
}

// readAll reads the next value with the reader's methods; at the top level, attributes whose
// name starts with skip are passed with Skip.
func readAll(r store.ValueReader, skip byte) any {
	switch r.Kind() {
	case store.KindBool:
		return r.Bool()
	case store.KindString:
		return r.Str()
	case store.KindInt:
		return r.Int()
	case store.KindFloat:
		return r.Float()
	case store.KindList:
		out := make([]any, r.Len())
		for i := range out {
			out[i] = readAll(r, 0)
		}
		return out
	case store.KindMap:
		n := r.Len()
		out := make(map[string]any, n)
		for range n {
			k := r.Name()
			if skip != 0 && k[0] == skip {
				r.Skip()
				continue
			}
			out[k] = readAll(r, 0)
		}
		return out
	}
	r.Skip()
	return nil
}
