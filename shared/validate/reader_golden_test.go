package validate

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

// readGoldenModel mirrors the Pydantic model M of testdata/pydantic_golden.py field by field,
// in the same order, the way a handler reads its body.
func readGoldenModel(errs *Errors, raw any, present bool) {
	obj, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return
	}
	obj.Get("name").Required().String(MinLen(1), MaxLen(5))
	obj.Get("count").Int(Ge(1), Le(10))
	obj.Get("ratio").Float(Ge(0), Le(1))
	obj.Get("flag").Bool()
	obj.Get("color").Enum("red", "green", "blue")
	obj.Get("kind").Literal("a", "b")
	obj.Get("ident").Nullable().UUID(4)
	obj.Get("any_uuid").Nullable().UUID(0)
	obj.Get("when").Nullable().Datetime()
	obj.Get("day").Nullable().Date()
	if tags, ok := obj.Get("tags").List(MinLen(1), MaxLen(2)); ok {
		for _, t := range tags {
			t.String()
		}
	}
	if inner, ok := obj.Get("inner").Nullable().Object(); ok {
		inner.Get("model").Required().String()
		inner.Get("id").Required().String()
	}
	obj.Get("extra_labels").Nullable().StringMap()
	obj.Get("token").Nullable().String()
}

func TestReaderMatchesPydantic(t *testing.T) {
	data, err := os.ReadFile("testdata/pydantic_golden.json")
	if err != nil {
		t.Fatal(err)
	}
	var golden struct {
		Cases []struct {
			Body   json.RawMessage `json:"body"`
			Detail []any           `json:"detail"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		t.Fatal(err)
	}
	if len(golden.Cases) < 50 {
		t.Fatalf("golden file holds %d cases, want the full set", len(golden.Cases))
	}
	for _, c := range golden.Cases {
		t.Run(string(c.Body), func(t *testing.T) {
			raw, present, perr := DecodeBody(c.Body)
			if perr != nil {
				t.Fatalf("golden body does not parse: %v", perr)
			}
			errs := New()
			readGoldenModel(errs, raw, present)
			got := roundTrip(t, errs.Detail)
			want := c.Detail
			if want == nil {
				want = []any{}
			}
			if !reflect.DeepEqual(got, want) {
				g, _ := json.MarshalIndent(got, "", " ")
				w, _ := json.MarshalIndent(want, "", " ")
				t.Errorf("detail differs from Pydantic\n got: %s\nwant: %s", g, w)
			}
		})
	}
}

// roundTrip renders the errors as the response would carry them and reads them back
// generically, so the comparison is of JSON values (1 and 1.0 are the same number).
func roundTrip(t *testing.T, detail []Error) []any {
	t.Helper()
	if detail == nil {
		detail = []Error{}
	}
	b, err := json.Marshal(detail)
	if err != nil {
		t.Fatal(err)
	}
	var out []any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
