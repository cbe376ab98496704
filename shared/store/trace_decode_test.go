package store

import (
	"encoding/json"
	"math"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fill sets every exported JSON field of v (recursively) to a random value, or leaves it
// zero now and then, so that each column is seen both present and absent.
func fill(r *rand.Rand, v reflect.Value, depth int) {
	if v.Type() == reflect.TypeOf(time.Time{}) {
		v.Set(reflect.ValueOf(time.Unix(r.Int63n(4e9), r.Int63n(1e9)).In([]*time.Location{time.UTC, time.FixedZone("", 7200)}[r.Intn(2)])))
		return
	}
	switch v.Kind() {
	case reflect.String:
		texts := []string{"", "plain", "with \"quotes\" and \\ and \n", "<html> & é ✓ \u2028", "\x01ctl", "日本"}
		v.SetString(texts[r.Intn(len(texts))] + strings.Repeat("x", r.Intn(3)))
	case reflect.Int64:
		v.SetInt(r.Int63() - r.Int63())
	case reflect.Float64:
		v.SetFloat(r.NormFloat64() * math.Pow(10, float64(r.Intn(40)-20)))
	case reflect.Bool:
		v.SetBool(r.Intn(2) == 0)
	case reflect.Pointer:
		if r.Intn(4) > 0 {
			v.Set(reflect.New(v.Type().Elem()))
			fill(r, v.Elem(), depth+1)
		}
	case reflect.Slice:
		if r.Intn(3) > 0 {
			n := r.Intn(4)
			v.Set(reflect.MakeSlice(v.Type(), n, n))
			for i := range n {
				fill(r, v.Index(i), depth+1)
			}
		}
	case reflect.Map:
		if r.Intn(3) > 0 {
			v.Set(reflect.MakeMap(v.Type()))
			for range r.Intn(4) {
				k := reflect.New(v.Type().Key()).Elem()
				fill(r, k, depth+1)
				e := reflect.New(v.Type().Elem()).Elem()
				fill(r, e, depth+1)
				v.SetMapIndex(k, e)
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			if r.Intn(5) > 0 || f.Anonymous {
				fill(r, v.Field(i), depth+1)
			}
		}
	}
}

// The fast path decodes every header as encoding/json does, and takes every header a
// Trace can be written as: a column added to Trace (or MetricValue, Usage, ScorerError)
// without its case in decodeTraceHeader fails here, not in production (where the header
// would still decode, by the slow path).
func TestDecodeTraceFastPath(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := range 3000 {
		var tr Trace
		fill(r, reflect.ValueOf(&tr).Elem(), 0)
		doc, err := json.Marshal(tr)
		if err != nil {
			t.Fatal(err)
		}
		var want, got Trace
		if err := json.Unmarshal(doc, &want); err != nil {
			t.Fatal(err)
		}
		if !decodeTraceHeader(string(doc), &got) {
			t.Fatalf("trace %d: the fast path refused a header Trace writes (a new column?): %s", i, doc)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("trace %d: %s\nfast %+v\njson %+v", i, doc, got, want)
		}
	}
}

// What the fast path does not know goes to encoding/json, whose answer DecodeTrace keeps.
func TestDecodeTraceFallback(t *testing.T) {
	docs := []string{
		`{"id":"a","future_column":1}`,
		`{"id":"a","model":null}`,
		`{"id":"a", "name":"spaced"}`,
		`{"ID":"a"}`,
		`{"id":"a","metrics":{"m":{"n":1,"z":2}}}`,
		`{"id":"a","num_spans":1.5}`,
		`{"id":"a"`,
		`{"id":"a"} x`,
	}
	for _, doc := range docs {
		var fast Trace
		if decodeTraceHeader(doc, &fast) {
			t.Errorf("fast path took %s", doc)
		}
		var got, want Trace
		gerr := DecodeTrace(Item{AttrPK: "P", AttrSK: "S", "doc": doc}, &got)
		werr := json.Unmarshal([]byte(doc), &want)
		if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: DecodeTrace %+v, %v; encoding/json %+v, %v", doc, got, gerr, want, werr)
		}
	}
}

func BenchmarkDecodeTrace(b *testing.B) {
	r := rand.New(rand.NewSource(2))
	items := make([]Item, 100)
	for i := range items {
		var tr Trace
		fill(r, reflect.ValueOf(&tr).Elem(), 0)
		doc, _ := json.Marshal(tr)
		items[i] = Item{AttrPK: "P", AttrSK: "S", "doc": string(doc)}
	}
	b.Run("fast", func(b *testing.B) {
		var tr Trace
		for b.Loop() {
			for _, it := range items {
				if err := DecodeTrace(it, &tr); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		var tr Trace
		for b.Loop() {
			for _, it := range items {
				tr = Trace{}
				if err := json.Unmarshal([]byte(it["doc"].(string)), &tr); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
}
