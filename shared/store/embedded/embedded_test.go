package embedded_test

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/store/storetest"
)

func TestConformanceMemory(t *testing.T) {
	// One table for the whole suite, as against DynamoDB: the suite keeps tests apart.
	db := openMemory(t)
	storetest.Run(t, func(*testing.T) store.Table { return db })
}

func TestConformanceFile(t *testing.T) {
	if testing.Short() {
		t.Skip("the file run repeats the memory run with fsync")
	}
	db, err := embedded.Open(filepath.Join(t.TempDir(), "table.db"), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	storetest.Run(t, func(*testing.T) store.Table { return db })
}

func openMemory(t *testing.T) *embedded.DB {
	t.Helper()
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := db.Close(); err != nil {
			t.Error(err)
		}
	})
	return db
}

func item(pk, sk string, kv ...any) store.Item {
	return store.Item{store.AttrPK: pk, store.AttrSK: sk}.With(kv...)
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "table.db")
	db, err := embedded.Open(path, embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := item("P", "1", store.AttrGSI1PK, "G", store.AttrGSI1SK, "a", "n", int64(7), "f", 0.5)
	if err := db.Put(ctx, want); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	db, err = embedded.Open(path, embedded.Options{})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer db.Close()
	got, err := db.Get(ctx, want.Key(), false)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("Get after reopen = %v, %v; want %v", got, err, want)
	}
	page, err := db.Query(ctx, store.Query{Index: store.IndexGSI1, PK: "G"})
	if err != nil || len(page.Items) != 1 || !reflect.DeepEqual(page.Items[0], want) {
		t.Fatalf("index query after reopen = %v, %v", page.Items, err)
	}
}

// OpenMemory's file is removed by Close. The test gives it a temp directory of its own: other
// test binaries running at the same time (go test -p 2) write to the shared one, and a count
// of files there failed when they did.
func TestOpenMemoryRemovesFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	files := func() []string {
		m, _ := filepath.Glob(filepath.Join(dir, "*"))
		return m
	}
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	if f := files(); len(f) != 1 {
		t.Fatalf("while open, the temp directory holds %q; want the store's file", f)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if f := files(); len(f) != 0 {
		t.Fatalf("after Close, the temp directory holds %q", f)
	}
}
