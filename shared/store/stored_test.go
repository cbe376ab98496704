package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// The embedded store's direct decode (its stored bytes straight into the record's struct)
// answers as Unmarshal on the item Get, BatchGet and Query return: on the random records of
// TestCodecMatchesJSON (the same generator and seed: every record type, attributes of other
// kinds, keys in other cases and unknown keys, nulls), stored and read back through each of
// the three reads (Query on the table, both ways, and on an index). Keys, pages and cursors
// must agree too.
func TestStoredDecodeMatchesUnmarshal(t *testing.T) {
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	storedSuite(t, db, 600, 37)
}

// TestStoredDecodeMatchesUnmarshalDynamoDB is the same on DynamoDB Local, whose adapter reads
// records from the values of its answers' JSON. The property is the decode's, not the
// volume's (the embedded half draws 600 records of each type): a dozen records of each type
// still take every read path, with Query pages of 5 (three pages each way, a cursor between
// each), at about 45 round trips per type where 40 records took 150. The types run one after
// another: in parallel DynamoDB Local answered slower, not faster (measured: 50 s at
// -parallel 1, 97 s at -parallel 8, on a loaded machine).
func TestStoredDecodeMatchesUnmarshalDynamoDB(t *testing.T) {
	storedSuite(t, testenv.OpenDynamo(t, testenv.DynamoLocal(t)), 12, 5)
}

// storedSuite stores n random records of every type in tbl and holds its direct decode to
// Unmarshal through Get, BatchGet and Query pages of limit items.
func storedSuite(t *testing.T, tbl store.Table, n, limit int) {
	ctx := context.Background()
	db, ok := tbl.(interface {
		store.Table
		store.RecordReader
	})
	if !ok {
		t.Fatalf("%T is not a store.RecordReader", tbl)
	}
	rng := rand.New(rand.NewPCG(7, 23))
	for _, rec := range store.CodecRecordTypes {
		typ := reflect.TypeOf(rec)
		pk := "CODEC#" + typ.Name()
		var items []store.Item
		for i := range n {
			it, ok := store.RandomItem(rng, typ, i)
			if !ok {
				continue
			}
			it[store.AttrPK], it[store.AttrSK] = pk, fmt.Sprintf("%04d", i)
			it[store.AttrGSI1PK], it[store.AttrGSI1SK] = pk, fmt.Sprintf("%04d", n-i) // an index in the other order
			items = append(items, it)
		}
		t.Run(typ.Name(), func(t *testing.T) {
			keys := putStored(t, db, items)
			if len(keys) < n/3 {
				t.Fatalf("only %d of %d random %s stored", len(keys), n, typ)
			}
			var prev store.Item
			for _, k := range keys {
				it, err := db.Get(ctx, k, true)
				if err != nil {
					t.Fatal(err)
				}
				s, err := db.GetStored(ctx, k, true)
				if err != nil {
					t.Fatal(err)
				}
				compareStored(t, typ, it, s)
				compareStoredOver(t, typ, prev, it, s)
				prev = it
			}
			for batch := range slices.Chunk(keys, store.MaxBatchGet) {
				items, err := db.BatchGet(ctx, batch, true)
				if err != nil {
					t.Fatal(err)
				}
				stored, err := db.BatchGetStored(ctx, batch, true)
				if err != nil || len(stored) != len(items) {
					t.Fatalf("BatchGetStored: %d items, %v; BatchGet: %d", len(stored), err, len(items))
				}
				byKey := map[store.Key]store.StoredItem{}
				for _, s := range stored {
					byKey[s.Key()] = s // DynamoDB answers a batch in any order
				}
				for i := range items {
					compareStored(t, typ, items[i], byKey[items[i].Key()])
				}
			}
			for _, q := range []store.Query{
				{PK: pk, Limit: limit, Consistent: true}, {PK: pk, Limit: limit, Descending: true, Consistent: true},
				{Index: store.IndexGSI1, PK: pk, Limit: limit + 4},
			} {
				for n := 0; ; n++ {
					page, err := db.Query(ctx, q)
					if err != nil {
						t.Fatal(err)
					}
					stored, err := db.QueryStored(ctx, q)
					if err != nil || len(stored.Items) != len(page.Items) || !reflect.DeepEqual(stored.Next, page.Next) {
						t.Fatalf("page %d: QueryStored %d items, next %v, %v; Query %d items, next %v", n, len(stored.Items), stored.Next, err, len(page.Items), page.Next)
					}
					for i := range page.Items {
						compareStored(t, typ, page.Items[i], stored.Items[i])
					}
					if page.Next == nil {
						break
					}
					q.Start = page.Next
				}
			}
		})
	}
}

// putStored writes items in batches of store.MaxBatchWrite, each item alone instead where
// its batch is refused (a value over DynamoDB's limits refuses the whole request), and returns
// the keys stored, in the items' order.
func putStored(t *testing.T, db store.Table, items []store.Item) []store.Key {
	t.Helper()
	var keys []store.Key
	for batch := range slices.Chunk(items, store.MaxBatchWrite) {
		if err := db.BatchWrite(t.Context(), batch, nil); err == nil {
			for _, it := range batch {
				keys = append(keys, it.Key())
			}
			continue
		}
		for _, it := range batch {
			if err := db.Put(t.Context(), it); err != nil {
				continue // a value the store refuses (DynamoDB's limits)
			}
			keys = append(keys, it.Key())
		}
	}
	return keys
}

// compareStored holds s, read directly, to Unmarshal of it: the same error or none, the
// same record, the same key and item.
func compareStored(t *testing.T, typ reflect.Type, it store.Item, s store.StoredItem) {
	t.Helper()
	if s.Key() != it.Key() {
		t.Fatalf("stored key %v, item key %v", s.Key(), it.Key())
	}
	want, got := reflect.New(typ), reflect.New(typ)
	errWant := store.Unmarshal(it, want.Interface())
	errGot := s.Decode(got.Interface())
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("item %v:\nUnmarshal error: %v\ndirect error: %v", it, errWant, errGot)
	}
	if errWant == nil && !reflect.DeepEqual(want.Interface(), got.Interface()) {
		t.Fatalf("item %v:\nUnmarshal: %+v\ndirect:    %+v", it, want.Elem(), got.Elem())
	}
	// A second decode (of the same stored item) and its map answer the same.
	again := reflect.New(typ)
	if err := s.Decode(again.Interface()); (err == nil) != (errGot == nil) || err == nil && !reflect.DeepEqual(again.Interface(), got.Interface()) {
		t.Fatalf("item %v: a second decode differs: %v", it, err)
	}
	if m := s.Item(); !reflect.DeepEqual(m, it) {
		t.Fatalf("stored item's map %v, item %v", m, it)
	}
}

// compareStoredOver is compareStored into a record already filled from the item before
// (encoding/json keeps what an item does not name, and sets to nil what it names as null).
func compareStoredOver(t *testing.T, typ reflect.Type, prev, it store.Item, s store.StoredItem) {
	t.Helper()
	want, got := reflect.New(typ), reflect.New(typ)
	if prev == nil || store.Unmarshal(prev, want.Interface()) != nil || store.Unmarshal(prev, got.Interface()) != nil {
		return
	}
	errWant := store.Unmarshal(it, want.Interface())
	errGot := s.Decode(got.Interface())
	if (errWant == nil) != (errGot == nil) {
		t.Fatalf("item %v over %v:\nUnmarshal error: %v\ndirect error: %v", it, prev, errWant, errGot)
	}
	if errWant == nil && !reflect.DeepEqual(want.Interface(), got.Interface()) {
		t.Fatalf("item %v over %v:\nUnmarshal: %+v\ndirect:    %+v", it, prev, want.Elem(), got.Elem())
	}
}

// The comparison can fail: a record the direct decode reads from another item differs, and a
// kind mismatch is an error on the direct path too.
func TestStoredComparisonCanFail(t *testing.T) {
	ctx := context.Background()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, it := range []store.Item{
		{store.AttrPK: "U", store.AttrSK: "1", "id": "u1", "email": "x@y"},
		{store.AttrPK: "U", store.AttrSK: "2", "id": "u2"},
		{store.AttrPK: "U", store.AttrSK: "3", "id": int64(3)},
	} {
		if err := db.Put(ctx, it); err != nil {
			t.Fatal(err)
		}
	}
	var a, b store.User
	for k, u := range map[string]*store.User{"1": &a, "2": &b} {
		s, err := db.GetStored(ctx, store.Key{PK: "U", SK: k}, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Decode(u); err != nil {
			t.Fatal(err)
		}
	}
	if reflect.DeepEqual(a, b) || a.ID != "u1" || a.Email != "x@y" {
		t.Fatalf("decoded %+v and %+v", a, b)
	}
	s, err := db.GetStored(ctx, store.Key{PK: "U", SK: "3"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Decode(&a); err == nil {
		t.Fatal("a number into a string field decoded without error")
	}
}

// BenchmarkRecordRead reads a log stream with two scorers (the metric-settings request's one
// read) from the embedded store: "map" as Get and Unmarshal, "stored" from the stored bytes.
//
//	go test -run '^$' -bench RecordRead -benchmem ./shared/store/
func BenchmarkRecordRead(b *testing.B) {
	ctx := context.Background()
	db, err := embedded.OpenMemory()
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	str := func(s string) *string { return &s }
	n, yes := int64(3), true
	scorer := func(id, name string) store.ScorerConfig {
		return store.ScorerConfig{ID: id, Name: str(name), ScorerType: str("llm"), ModelName: str("gpt-4o-mini"),
			NumJudges: &n, CotEnabled: &yes, OutputType: str("boolean"), InputType: str("basic"),
			ScoreableNodeTypes: []string{"llm", "chain"}, ScoreType: str("bool"), MetricName: str(name + "_score"),
			ScorerVersion: &store.ScorerVersionRecord{ID: id + "-v1", Version: 1, ScorerID: id, ModelName: str("gpt-4o-mini"), NumJudges: &n}}
	}
	ls := store.LogStream{ID: "ls1", ProjectID: "p1", OrgID: "o1", Name: "production", CreatedBy: "u1",
		CreatedAt: time.Date(2026, 11, 25, 1, 2, 3, 456789000, time.UTC), UpdatedAt: time.Date(2026, 11, 25, 2, 3, 4, 0, time.UTC),
		MetricSettings: store.MetricSettings{Scorers: []store.ScorerConfig{scorer("s1", "correctness"), scorer("s2", "toxicity")},
			SegmentFilters: []store.SegmentFilter{{SampleRate: 0.5, LLMScorers: true}}}}
	it, err := store.Marshal(ls)
	if err != nil {
		b.Fatal(err)
	}
	k := store.Key{PK: "PROJECT#p1", SK: "LOGSTREAM#ls1"}
	it[store.AttrPK], it[store.AttrSK] = k.PK, k.SK
	if err := db.Put(ctx, it); err != nil {
		b.Fatal(err)
	}
	b.Run("map", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			it, err := db.Get(ctx, k, true)
			if err != nil {
				b.Fatal(err)
			}
			var got store.LogStream
			if err := store.Unmarshal(it, &got); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("stored", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s, err := db.GetStored(ctx, k, true)
			if err != nil {
				b.Fatal(err)
			}
			var got store.LogStream
			if err := s.Decode(&got); err != nil {
				b.Fatal(err)
			}
		}
	})
}
