package dynamo

import (
	"encoding/json"
	"errors"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

// viaTypes decodes an item's JSON the other way: encoding/json into the SDK's attribute
// value types (avMap), then fromAV, the conversion the SDK's client was followed by.
func viaTypes(b []byte) (store.Item, error) {
	var m avMap
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return toItem(m)
}

func viaWire(b []byte) (store.Item, error) {
	var w wireItem
	err := json.Unmarshal(b, &w)
	return store.Item(w), err
}

func randomValue(r *rand.Rand, depth int) any {
	switch n := r.IntN(9); {
	case n == 0:
		return nil
	case n == 1:
		return r.IntN(2) == 0
	case n == 2:
		return r.Int64() - r.Int64()
	case n == 3:
		return float64(r.IntN(1e6)) / 64
	case n == 4 && depth < 3:
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randomValue(r, depth+1)
		}
		return l
	case n == 5 && depth < 3:
		m := map[string]any{}
		for range r.IntN(4) {
			m["k"+randomString(r)] = randomValue(r, depth+1)
		}
		return m
	}
	return randomString(r)
}

func randomString(r *rand.Rand) string {
	parts := []string{"a", "Zz", "é", "日本", "\"", "\\", "\n", "\t", "\u2028", "<&>", "\U0001F600", "\x01", " "}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// TestWireItemMatchesTypes holds the direct decoder to the typed path on random items as the
// adapter writes them.
func TestWireItemMatchesTypes(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		it := store.Item{"PK": "P", "SK": strconv.Itoa(i)}
		for range r.IntN(6) {
			it["k"+randomString(r)] = randomValue(r, 0)
		}
		av, err := itemAV(it)
		if err != nil {
			t.Fatal(err)
		}
		b := appendAVMap(nil, av)
		want, err := viaTypes(b)
		if err != nil {
			t.Fatalf("typed path: %v\n%s", err, b)
		}
		got, err := viaWire(b)
		if err != nil {
			t.Fatalf("wire path: %v\n%s", err, b)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("item %d:\n got %#v\nwant %#v\njson %s", i, got, want, b)
		}
	}
}

// TestWireItemForms: what DynamoDB (or an emulator) may send beyond what the adapter writes.
func TestWireItemForms(t *testing.T) {
	for _, tc := range []string{
		` { "a" : { "S" : "x" } , "b" : {"N":"1.50"} } `,
		`{"a":{"S":"\u00e9\ud83d\ude00\n\/"}}`,
		`{"a":{"S":"\ud800"}}`,
		`{"a":{"SS":["x","y"]},"b":{"NS":["1","2.5","-0"]}}`,
		`{"a":{"L":[]},"b":{"M":{}},"c":{"NULL":true},"d":{"BOOL":false}}`,
		`{"a":{"N":"1e3"},"b":{"N":"12345678901234567890"},"c":{"N":"-7"}}`,
		"{\"a\":{\"S\":\"caf\xc3\xa9 \xff\"}}",
		`{}`,
	} {
		want, werr := viaTypes([]byte(tc))
		got, gerr := viaWire([]byte(tc))
		if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %#v, %v\nwant %#v, %v", tc, got, gerr, want, werr)
		}
	}
}

// TestWireItemRefuses: malformed or unsupported input is an error (of the store's kind for
// what DynamoDB could send), never a panic or a partial item.
func TestWireItemRefuses(t *testing.T) {
	for _, tc := range []string{
		`{"a":{"B":"AAE="}}`,
		`{"a":{"X":"1"}}`,
		`{"a":{"N":"one"}}`,
		`{"a":{"S":"x"}`,
		`{"a":{"S":"x}}`,
		`{"a":{"S":1}}`,
		`{"a":{"BOOL":tru}}`,
		`{"a":{"L":[{"S":"x"},]}}`,
		`{"a" {"S":"x"}}`,
		`[]`,
		"{\"a\":{\"S\":\"\x01\"}}",
	} {
		got, err := viaWire([]byte(tc))
		if err == nil {
			t.Errorf("%s: decoded as %#v", tc, got)
		}
	}
	if _, err := viaWire([]byte(`{"a":{"B":"AAE="}}`)); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("unsupported type: %v, want ErrInvalid", err)
	}
}

func FuzzWireItem(f *testing.F) {
	f.Add([]byte(`{"a":{"M":{"b":{"L":[{"N":"1"},{"S":"\u00e9"}]}}}}`))
	f.Add([]byte(`{"a":{"SS":["x"]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got, err := viaWire(b)
		want, werr := viaTypes(b)
		// Where both decode, they agree. (The typed path also takes what DynamoDB never
		// sends, member names in other cases or unknown ones, which encoding/json
		// ignores; the wire path refuses those.)
		if err == nil && werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %#v\nwant %#v", b, got, want)
		}
	})
}

// BenchmarkQueryPageDecode: a page of 100 items of ~1 KB as DynamoDB sends it, through the
// SDK's types (the path before) and straight into the store's vocabulary.
func BenchmarkQueryPageDecode(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var page []byte
	page = append(page, `{"Count":100,"Items":[`...)
	for i := range 100 {
		it := store.Item{"PK": "RUN#r1", "SK": "T#" + strconv.Itoa(i), "doc": strings.Repeat("x", 600), "n": int64(i), "f": 1.5}
		for j := range 8 {
			it["k"+strconv.Itoa(j)] = randomValue(r, 1)
		}
		av, err := itemAV(it)
		if err != nil {
			b.Fatal(err)
		}
		if i > 0 {
			page = append(page, ',')
		}
		page = appendAVMap(page, av)
	}
	page = append(page, "]}"...)
	b.Run("types", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			var w struct{ Items []avMap }
			if err := json.Unmarshal(page, &w); err != nil {
				b.Fatal(err)
			}
			for _, m := range w.Items {
				if _, err := toItem(m); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("tokens", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			var out storedQueryOutput // QueryStored's: values kept flat, no maps
			if err := out.UnmarshalJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("wire", func(b *testing.B) {
		b.SetBytes(int64(len(page)))
		for b.Loop() {
			var out QueryOutput // as awscall decodes it
			if err := out.UnmarshalJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func TestQueryOutputDecode(t *testing.T) {
	body := `{"ConsumedCapacity":{"TableName":"t","CapacityUnits":0.5},"Count":2,"Items":[{"PK":{"S":"P"},"SK":{"S":"1"}},` +
		`{"PK":{"S":"P"},"SK":{"S":"2"},"l":{"L":[{"N":"3"}]}}],"LastEvaluatedKey":{"PK":{"S":"P"},"SK":{"S":"2"}},"ScannedCount":2}`
	var out QueryOutput
	if err := json.Unmarshal([]byte(body), &out); err != nil {
		t.Fatal(err)
	}
	want := []store.Item{{"PK": "P", "SK": "1"}, {"PK": "P", "SK": "2", "l": []any{int64(3)}}}
	if out.Count != 2 || !reflect.DeepEqual(out.Items, want) {
		t.Errorf("Count %d, Items %#v", out.Count, out.Items)
	}
	if k, err := toItem(out.LastEvaluatedKey); err != nil || !reflect.DeepEqual(k, store.Item{"PK": "P", "SK": "2"}) {
		t.Errorf("LastEvaluatedKey %v, %v", k, err)
	}
	var empty QueryOutput
	if err := json.Unmarshal([]byte(`{"Count":0,"Items":[],"ScannedCount":0}`), &empty); err != nil || len(empty.Items) != 0 || empty.LastEvaluatedKey != nil {
		t.Errorf("empty page: %+v, %v", empty, err)
	}
	// As awscall calls it: the decoder alone, without encoding/json's check of the text first.
	for _, bad := range []string{`{"Items":[{"a":{"S":"x"}}`, `{"Count":"x"}`, `{"Items":{}}`, `[]`, `{"Count":1} x`, `{"Count":1,}`, `{"X":[1,}`} {
		if err := out.UnmarshalJSON([]byte(bad)); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
