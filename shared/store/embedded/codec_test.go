package embedded

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/evalobs/evalapi/shared/store"
)

// randomValue is a value of the vocabulary, as validation leaves it (integral floats are int64).
func randomValue(r *rand.Rand, depth int) any {
	switch k := r.Intn(9); {
	case k == 0:
		return nil
	case k == 1:
		return r.Intn(2) == 0
	case k == 2:
		return strings.Repeat(string(rune('a'+r.Intn(26))), r.Intn(300)) + "\"\\\n€"
	case k == 3:
		return r.Int63() - r.Int63()
	case k == 4:
		// Up to ~1e10: format 1 (JSON) turns an integral float past 2^53 into an int64.
		v, _ := store.Normalize(r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-30)))
		return v
	case k == 5 && depth < 4:
		out := make([]any, r.Intn(5))
		for i := range out {
			out[i] = randomValue(r, depth+1)
		}
		return out
	case k == 6 && depth < 4:
		n := r.Intn(5)
		out := make(map[string]any, n)
		for range n {
			out[string(rune('a'+r.Intn(26)))+"é"] = randomValue(r, depth+1)
		}
		return out
	}
	return ""
}

func randomItem(r *rand.Rand) store.Item {
	it := store.Item{store.AttrPK: "P", store.AttrSK: "S"}
	for range r.Intn(12) {
		it[string(rune('a'+r.Intn(26)))] = randomValue(r, 0)
	}
	return it
}

// Every item decodes to what was encoded, in the binary format and in format 1 (JSON).
func TestCodecRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 2000 {
		it := randomItem(r)
		b, err := encodeItem(it)
		if err != nil {
			t.Fatal(err)
		}
		got, size, err := decodeItemSized(b)
		if err != nil || !reflect.DeepEqual(got, it) {
			t.Fatalf("binary: %#v\n got %#v, %v", it, got, err)
		}
		if want := store.ItemSize(it); size != want {
			t.Fatalf("binary: %#v\n size %d, ItemSize %d", it, size, want)
		}
		legacy, err := json.Marshal(map[string]any(it))
		if err != nil {
			t.Fatal(err)
		}
		got, err = decodeItem(legacy)
		if err != nil || !reflect.DeepEqual(got, it) {
			t.Fatalf("format 1: %s\n got %#v, %v", legacy, got, err)
		}
		// A truncated or damaged item is an error, never a panic or a wrong item.
		if len(b) > 1 {
			if _, err := decodeItem(b[:r.Intn(len(b)-1)+1]); err == nil {
				t.Fatalf("truncated %x decoded", b)
			}
		}
	}
}

// writeFormat1 makes a file as builds before format 2 left it: items as JSON, no marker.
func writeFormat1(t *testing.T, path string, items ...store.Item) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range bucketNames() {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return err
			}
		}
		for _, it := range items {
			v, err := json.Marshal(map[string]any(it))
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketItems).Put(baseKey(it.Key()), v); err != nil {
				return err
			}
			k := baseKey(it.Key())
			for _, ix := range indexes {
				if e := indexEntry(ix, it); e != nil {
					if err := tx.Bucket(ix.bucket).Put(e, k); err != nil {
						return err
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenMigratesFormat1(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table.db")
	old := store.Item{store.AttrPK: "P", store.AttrSK: "S", "n": int64(3), "f": 0.5, "l": []any{"x", nil}, "m": map[string]any{"k": true}}
	writeFormat1(t, path, old)
	for range 2 { // the second open finds format 2 and changes nothing
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := db.Get(context.Background(), old.Key(), true)
		if err != nil || !reflect.DeepEqual(got, old) {
			t.Fatalf("after migration: %#v, %v", got, err)
		}
		var raw []byte
		var format string
		_ = db.bolt.View(func(tx *bolt.Tx) error {
			raw = append(raw, tx.Bucket(bucketItems).Get(baseKey(old.Key()))...)
			format = string(tx.Bucket(bucketMeta).Get(keyFormat))
			return nil
		})
		if raw[0] != itemFormat2 || format != "2" {
			t.Fatalf("item starts %q, format marker %q", raw[:1], format)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRefusesNewerFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "table.db")
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	_ = b.Update(func(tx *bolt.Tx) error {
		m, _ := tx.CreateBucketIfNotExists(bucketMeta)
		return m.Put(keyFormat, []byte("3"))
	})
	b.Close()
	_, err = Open(path, Options{})
	if !errors.Is(err, ErrNewerFormat) || !strings.Contains(err.Error(), "DATA_DIR") {
		t.Fatalf("open of a format-3 file: %v", err)
	}
}

func BenchmarkDecodeItem(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	items := make([][]byte, 100)
	legacy := make([][]byte, 100)
	for i := range items {
		it := randomItem(r)
		items[i], _ = encodeItem(it)
		legacy[i], _ = json.Marshal(map[string]any(it))
	}
	for _, c := range []struct {
		name string
		in   [][]byte
	}{{"binary", items}, {"json", legacy}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, v := range c.in {
					if _, err := decodeItem(v); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
