package embedded_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// RangeAttrs shows the same items as Query's pages, in the same order, in both directions,
// on the base table and an index, across its transaction chunks (9,000 items: three), with
// a string attribute, a missing one and one of another kind told apart.
func TestRangeAttrsMatchesQuery(t *testing.T) {
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var items []store.Item
	for i := range 9000 {
		it := store.Item{store.AttrPK: "P", store.AttrSK: fmt.Sprintf("S#%05d", i), "s": strings.Repeat("x", i%7),
			"n": int64(i), "l": []any{"a", map[string]any{"k": 1.5}}, store.AttrGSI1PK: "G", store.AttrGSI1SK: fmt.Sprintf("%05d", 9000-i)}
		if i%3 == 0 {
			delete(it, "s")
		}
		if i%5 == 0 {
			it["s"] = int64(i)
		}
		items = append(items, it)
	}
	for chunk := range slices.Chunk(items, 25) {
		if err := db.BatchWrite(ctx, chunk, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []store.Query{
		{PK: "P"},
		{PK: "P", Descending: true},
		{PK: "P", SKOp: store.SKBetween, From: "S#00100", To: "S#08500"},
		{PK: "P", SKOp: store.SKBetween, From: "S#00100", To: "S#08500", Descending: true},
		{Index: store.IndexGSI1, PK: "G", SKOp: store.SKGreaterEq, From: "00050"},
	} {
		var want []string
		for _, it := range mustQueryAll(t, db, q) {
			s, ok := it["s"].(string)
			want = append(want, fmt.Sprintf("%s %q %v", it[store.AttrSK], s, ok))
		}
		var got []string
		err := db.RangeAttrs(ctx, q, []string{store.AttrSK, "s", "missing"}, nil, func(v []store.AttrView) error {
			if v[2].OK {
				t.Fatal("a missing attribute is shown")
			}
			got = append(got, fmt.Sprintf("%s %q %v", v[0].S, v[1].S, v[1].OK))
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(want) < 4000 || !slices.Equal(got, want) {
			t.Fatalf("%+v: RangeAttrs showed %d items, Query %d; first differences: %v", q, len(got), len(want), firstDiff(got, want))
		}
		// A test inside the transaction: only what it keeps is shown, in order, across chunks
		// of visits (1,000 here) that keep few items.
		var kept, tested []string
		restore := embedded.SetRangeChunkVisits(1000)
		err = db.RangeAttrs(ctx, q, []string{store.AttrSK, "s", "missing"}, func(v []store.AttrView) bool {
			tested = append(tested, v[0].S)
			return strings.HasSuffix(v[0].S, "7")
		}, func(v []store.AttrView) error {
			kept = append(kept, fmt.Sprintf("%s %q %v", v[0].S, v[1].S, v[1].OK))
			return nil
		})
		restore()
		if err != nil {
			t.Fatal(err)
		}
		var wantKept []string
		for _, w := range want {
			if strings.HasSuffix(strings.Fields(w)[0], "7") {
				wantKept = append(wantKept, w)
			}
		}
		if len(tested) != len(want) || len(wantKept) < 400 || !slices.Equal(kept, wantKept) {
			t.Fatalf("%+v: keep tested %d of %d items; showed %d, want %d; first differences: %v", q, len(tested), len(want),
				len(kept), len(wantKept), firstDiff(kept, wantKept))
		}
		var whole []store.Item
		err = db.RangeItems(ctx, q, func(attrs []store.Attr) error {
			it := store.Item{}
			for _, a := range attrs {
				it[a.Name] = a.Value
			}
			whole = append(whole, it)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if all := mustQueryAll(t, db, q); !reflect.DeepEqual(whole, all) {
			t.Fatalf("%+v: RangeItems showed %d items unlike Query's %d", q, len(whole), len(all))
		}
	}
}

func mustQueryAll(t *testing.T, db store.Table, q store.Query) []store.Item {
	t.Helper()
	items, err := store.QueryAll(context.Background(), db, q)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("at %d: %q vs %q", i, a[i], b[i])
		}
	}
	return "one is a prefix of the other"
}

// A range's callback may write to the store: fn runs outside the read transaction, so a
// write that grows the file (and remaps it) does not wait for the range's reader. Inside a
// transaction this deadlocked; the guard turns a hang into a failure.
func TestRangeCallbackMayWrite(t *testing.T) {
	db, err := embedded.Open(filepath.Join(t.TempDir(), "t.db"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i := range 50 {
		if err := db.Put(ctx, store.Item{store.AttrPK: "R", store.AttrSK: fmt.Sprintf("%03d", i), "s": "x"}); err != nil {
			t.Fatal(err)
		}
	}
	big := strings.Repeat("y", 300_000)
	done := make(chan error, 1)
	go func() {
		n := 0
		done <- db.RangeAttrs(ctx, store.Query{PK: "R"}, []string{"s"}, nil, func([]store.AttrView) error {
			n++
			return db.Put(ctx, store.Item{store.AttrPK: "W", store.AttrSK: fmt.Sprint(n), "big": big})
		})
	}()
	select {
	case err := <-done:
		defer db.Close() // not on a deadlock: Close would wait for the stuck transaction
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("a write from a range's callback did not return (deadlock with the range's read transaction)")
	}
	if items := mustQueryAll(t, db, store.Query{PK: "W"}); len(items) != 50 {
		t.Fatalf("%d writes landed, want 50", len(items))
	}
}
