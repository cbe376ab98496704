package store

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand"
	"reflect"
	"strconv"
	"testing"
)

// The fast paths of ParseNumber must answer what the general path answers, for every text.
func TestParseNumberFastPathsMatchSlow(t *testing.T) {
	texts := []string{"0", "-0", "+0", "7", "+7", "007", "-007", "1e3", "1E+3", "1.5", "-1.5", "+1.5", "0.1", ".5", "5.",
		"1e400", "-1e400", "1e-400", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
		"-9223372036854775809", "12345678901234567890", "9007199254740993", "4.5e15", "1.0", "2.50", " 5", "5 ", "0x10",
		"1_000", "", "-", "abc", "NaN", "Inf", "1e", "1.e5", "00.5", "-0.0", "123456789012345678901234567890e-10"}
	r := rand.New(rand.NewSource(1))
	for range 2000 {
		texts = append(texts, strconv.FormatInt(r.Int63()-r.Int63(), 10),
			strconv.FormatFloat(r.NormFloat64()*math.Pow(10, float64(r.Intn(40)-20)), 'g', -1, 64),
			strconv.FormatFloat(r.Float64()*1e6, 'f', r.Intn(6), 64))
	}
	for _, s := range texts {
		got, gerr := ParseNumber(s)
		want, werr := parseNumberSlow(s)
		if (gerr != nil) != (werr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseNumber(%q) = %#v, %v; general path %#v, %v", s, got, gerr, want, werr)
		}
		if gerr != nil && !errors.Is(gerr, ErrInvalid) {
			t.Errorf("ParseNumber(%q): %v is not ErrInvalid", s, gerr)
		}
	}
}

// numberSize counts the digits DynamoDB bills; the fast forms agree with the JSON text.
func TestValueSizeOfNumbers(t *testing.T) {
	cases := map[any]int{int64(0): 1, int64(1000): 2, int64(-123456): 4, 0.001: 2, 1.5: 2, 123.456: 4, 1e300: 2, -2.5e-7: 2}
	for v, want := range cases {
		if got := valueSize(v); got != want {
			t.Errorf("valueSize(%v) = %d, want %d", v, got, want)
		}
	}
}

// Unmarshal's JSON of an item reads into a record as encoding/json's own JSON of it did.
func TestUnmarshalMatchesEncodingJSON(t *testing.T) {
	type rec struct {
		S   string          `json:"s"`
		N   int64           `json:"n"`
		F   float64         `json:"f"`
		B   bool            `json:"b"`
		L   []any           `json:"l"`
		M   map[string]any  `json:"m"`
		Raw json.RawMessage `json:"raw"`
	}
	r := rand.New(rand.NewSource(3))
	for range 500 {
		f, _ := Normalize(r.NormFloat64() * math.Pow(10, float64(r.Intn(50)-25)))
		it := Item{"s": "a\"\\\n\x01<é>\u2028", "n": r.Int63(), "f": f, "b": true,
			"l": []any{"x", int64(2), 0.5, nil}, "m": map[string]any{"k": "v"}, "raw": f}
		var got, want rec
		if err := Unmarshal(it, &got); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(map[string]any(it))
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%#v:\n got  %#v\n want %#v", it, got, want)
		}
	}
}
