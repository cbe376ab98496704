package validate

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/big"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// jsonGoldenCase is one line of testdata/json_golden.json, written by json_golden.py from
// what CPython 3.11's json.loads does with the bytes.
type jsonGoldenCase struct {
	In    *string `json:"in"`     // the body, when it is valid UTF-8
	InHex string  `json:"in_hex"` // the body otherwise
	Value any     `json:"value"`  // the decoded value in the form of jsonCanon
	Error *struct {
		Type string `json:"type"` // the class of the Python exception
		Msg  string `json:"msg"`
		Pos  int    `json:"pos"`
	} `json:"error"`
}

func (c *jsonGoldenCase) body(tb testing.TB) []byte {
	if c.In != nil {
		return []byte(*c.In)
	}
	b, err := hex.DecodeString(c.InHex)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func loadJSONGolden(tb testing.TB) []jsonGoldenCase {
	data, err := os.ReadFile("testdata/json_golden.json")
	if err != nil {
		tb.Fatal(err)
	}
	var golden struct {
		Python string
		Cases  []jsonGoldenCase
	}
	if err := json.Unmarshal(data, &golden); err != nil {
		tb.Fatal(err)
	}
	if !strings.HasPrefix(golden.Python, "3.11.") {
		tb.Fatalf("golden file written by Python %s, want 3.11", golden.Python)
	}
	return golden.Cases
}

// jsonPythonExceptions maps the Python exceptions other than json.JSONDecodeError to our messages.
var jsonPythonExceptions = map[string]string{
	"UnicodeDecodeError": MsgInvalidEncoding,
	"ValueError":         MsgIntTooLong,
	"RecursionError":     MsgTooDeep,
}

func TestParseJSONMatchesPython(t *testing.T) {
	cases := loadJSONGolden(t)
	if len(cases) < 150 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	for i, c := range cases {
		body := c.body(t)
		name := fmt.Sprintf("%d/%.40q", i, body)
		v, jerr := ParseJSON(body)
		switch {
		case c.Error == nil:
			if jerr != nil {
				t.Errorf("%s: error %v, Python accepts it", name, jerr)
				continue
			}
			if got := jsonCanon(t, v); !reflect.DeepEqual(got, c.Value) {
				t.Errorf("%s:\n got %v\nwant %v", name, got, c.Value)
			}
		case jerr == nil:
			t.Errorf("%s: accepted, Python raises %s %q", name, c.Error.Type, c.Error.Msg)
		case c.Error.Type == "JSONDecodeError":
			if jerr.Msg != c.Error.Msg || jerr.Pos != c.Error.Pos || !jerr.JSONInvalid() {
				t.Errorf("%s: got (%q, %d), want (%q, %d)", name, jerr.Msg, jerr.Pos, c.Error.Msg, c.Error.Pos)
			}
		default:
			if want := jsonPythonExceptions[c.Error.Type]; jerr.Msg != want || jerr.JSONInvalid() {
				t.Errorf("%s: got %q, want %q (Python raises %s)", name, jerr.Msg, want, c.Error.Type)
			}
			if c.Error.Type == "UnicodeDecodeError" && jerr.Pos != c.Error.Pos {
				t.Errorf("%s: invalid encoding at byte %d, Python says %d", name, jerr.Pos, c.Error.Pos)
			}
		}
	}
}

// jsonCanon writes a parsed value the way json_golden.py writes a Python value, so that the
// two compare with reflect.DeepEqual: numbers become Python's int or float, tagged with the
// type; objects become key-sorted pairs.
func jsonCanon(tb testing.TB, v any) any {
	switch v := v.(type) {
	case nil, bool:
		return v
	case string:
		return map[string]any{"str": v}
	case float64:
		return jsonCanonFloat(v)
	case json.Number:
		s := string(v)
		if strings.ContainsAny(s, ".eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil && !errors.Is(err, strconv.ErrRange) { // out of range is ±Inf, as in Python
				tb.Fatalf("json.Number %q: %v", s, err)
			}
			return jsonCanonFloat(f)
		}
		n, ok := new(big.Int).SetString(s, 10)
		if !ok {
			tb.Fatalf("json.Number %q is not an integer", s)
		}
		return map[string]any{"int": n.String()}
	case []any:
		list := make([]any, len(v))
		for i, x := range v {
			list[i] = jsonCanon(tb, x)
		}
		return map[string]any{"list": list}
	case map[string]any:
		pairs := make([]any, 0, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			pairs = append(pairs, []any{k, jsonCanon(tb, v[k])})
		}
		return map[string]any{"dict": pairs}
	}
	tb.Fatalf("ParseJSON returned a %T", v)
	return nil
}

func jsonCanonFloat(f float64) map[string]any {
	if math.IsNaN(f) {
		return map[string]any{"float": "nan"}
	}
	return map[string]any{"float": fmt.Sprintf("%016x", math.Float64bits(f))}
}

// TestParseJSONValues pins the Go representation, which the golden cases compare only up to
// Python's semantics.
func TestParseJSONValues(t *testing.T) {
	tests := []struct {
		in   string
		want any
	}{
		{`1.0`, json.Number("1.0")},
		{`-0`, json.Number("-0")},
		{`1E+5`, json.Number("1E+5")},
		{` 12 `, json.Number("12")},
		{`[]`, []any{}},
		{`{}`, map[string]any{}},
		{`[1,[2,[]],{"a":[]}]`, []any{json.Number("1"), []any{json.Number("2"), []any{}}, map[string]any{"a": []any{}}}},
		{`{"a":1,"b":{"c":null},"a":"x"}`, map[string]any{"a": "x", "b": map[string]any{"c": nil}}},
		{`[true,false,null,"\u00e9\n"]`, []any{true, false, nil, "é\n"}},
		{`Infinity`, math.Inf(1)},
		{`[-Infinity]`, []any{math.Inf(-1)}},
		{`"\ud800x"`, "\uFFFDx"},
	}
	for _, tt := range tests {
		got, err := ParseJSON([]byte(tt.in))
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParseJSON(%q) = %#v, %v; want %#v", tt.in, got, err, tt.want)
		}
		if a, ok := got.([]any); ok && a == nil {
			t.Errorf("ParseJSON(%q) returned a nil slice", tt.in)
		}
	}
	if v, err := ParseJSON([]byte("NaN")); err != nil || !math.IsNaN(v.(float64)) {
		t.Errorf("ParseJSON(NaN) = %v, %v", v, err)
	}

	// The result must not alias the input: bodies come from pooled buffers.
	body := []byte(`{"k":"v","n":[12]}`)
	v, _ := ParseJSON(body)
	for i := range body {
		body[i] = 'x'
	}
	if want := map[string]any{"k": "v", "n": []any{json.Number("12")}}; !reflect.DeepEqual(v, want) {
		t.Errorf("value changed with its input: %v", v)
	}
}

func TestJSONErrorKinds(t *testing.T) {
	tests := []struct {
		in      string
		msg     string
		pos     int
		invalid bool
		text    string
	}{
		{`{some broken json}`, jsonExpectingName, 1, true, "Expecting property name enclosed in double quotes (char 1)"},
		{"\"é\xff\"", MsgInvalidEncoding, 3, false, "invalid encoding at byte 3"},
		{"[" + strings.Repeat("7", 4301) + "]", MsgIntTooLong, 1, false, MsgIntTooLong + " (char 1)"},
		{strings.Repeat("[", maxJSONDepth+1), MsgTooDeep, maxJSONDepth, false, MsgTooDeep + " (char 1000)"},
	}
	for _, tt := range tests {
		_, err := ParseJSON([]byte(tt.in))
		if err == nil || err.Msg != tt.msg || err.Pos != tt.pos || err.JSONInvalid() != tt.invalid || err.Error() != tt.text {
			t.Errorf("ParseJSON(%.20q) = %#v (%v), want %q at %d", tt.in, err, err, tt.msg, tt.pos)
		}
	}
	// The deepest nesting accepted.
	deep := strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)
	if _, err := ParseJSON([]byte(deep)); err != nil {
		t.Errorf("%d levels: %v", maxJSONDepth, err)
	}
}

// FuzzParseJSON checks that ParseJSON never panics, reports positions inside the text, and
// agrees with encoding/json wherever Python and Go implement the same RFC 8259: valid UTF-8
// without a byte order mark (Go decodes nothing else), and no NaN or Infinity (Go rejects
// them), within Python's limits on nesting and integer length.
func FuzzParseJSON(f *testing.F) {
	for _, c := range loadJSONGolden(f) {
		f.Add(c.body(f))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		v, jerr := ParseJSON(data)
		if !bytes.Equal(data, orig) {
			t.Fatal("ParseJSON modified its input")
		}
		// No NUL byte, so that json.detect_encoding picks UTF-8 whatever the length.
		plain := utf8.Valid(data) && !bytes.HasPrefix(data, []byte("\xef\xbb\xbf")) && bytes.IndexByte(data, 0) < 0
		if jerr != nil {
			if v != nil {
				t.Fatalf("value %v with error %v", v, jerr)
			}
			limit := len(data) // code points never outnumber bytes
			if plain {
				limit = utf8.RuneCount(data)
			}
			if jerr.Pos < 0 || jerr.Pos > limit {
				t.Fatalf("%q: position %d outside [0, %d]: %v", data, jerr.Pos, limit, jerr)
			}
			if !jsonKnownMsg[jerr.Msg] {
				t.Fatalf("%q: unknown message %q", data, jerr.Msg)
			}
		}
		if !plain {
			return
		}
		valid := json.Valid(data)
		if !valid {
			if jerr == nil && !bytes.Contains(data, []byte("NaN")) && !bytes.Contains(data, []byte("Infinity")) {
				t.Fatalf("ParseJSON accepts %q, encoding/json rejects it", data)
			}
			return
		}
		if jerr != nil {
			depth, longInt := jsonLimits(data)
			if jerr.Msg == MsgTooDeep && depth > maxJSONDepth || jerr.Msg == MsgIntTooLong && longInt {
				return
			}
			t.Fatalf("ParseJSON rejects valid JSON %q: %v", data, jerr)
		}
		var want any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if err := dec.Decode(&want); err != nil {
			t.Fatalf("encoding/json: %v", err)
		}
		if !reflect.DeepEqual(v, want) {
			t.Fatalf("%q:\nParseJSON     %#v\nencoding/json %#v", data, v, want)
		}
	})
}

var jsonKnownMsg = map[string]bool{
	jsonExpectingValue: true, jsonExpectingName: true, jsonExpectingColon: true, jsonExpectingComma: true,
	jsonUnterminated: true, jsonControlChar: true, jsonBadEscape: true, jsonBadUEscape: true, jsonExtraData: true,
	MsgInvalidEncoding: true, MsgIntTooLong: true, MsgTooDeep: true,
}

// jsonLimits reports the nesting depth of valid JSON and whether it holds an integer
// longer than Python converts.
func jsonLimits(data []byte) (depth int, longInt bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	d := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return depth, longInt
		}
		switch tok := tok.(type) {
		case json.Delim:
			if tok == '[' || tok == '{' {
				d++
				depth = max(depth, d)
			} else {
				d--
			}
		case json.Number:
			s := strings.TrimPrefix(string(tok), "-")
			if !strings.ContainsAny(s, ".eE") && len(s) > maxJSONIntDigits {
				longInt = true
			}
		}
	}
}

// jsonBenchBodies are about 1 MiB each: "records" is request bodies of the usual shape, objects
// with short ASCII and non-ASCII strings, escapes, integers and floats (allocation bound);
// "text" is a few long strings (scanning bound).
func jsonBenchBodies() map[string][]byte {
	var records bytes.Buffer
	records.WriteString(`{"items":[`)
	for i := 0; records.Len() < 1<<20; i++ {
		if i > 0 {
			records.WriteByte(',')
		}
		fmt.Fprintf(&records, `{"id":"%08x-6c3a-4f5e-9d2b-7a1e0c4b8f21","name":"dataset \"%d\" – ünïcode","score":%d.%03d,`+
			`"count":%d,"ok":%t,"tags":["eval","prod","v%d"],"meta":{"owner":null,"note":"line\nbreak"}}`,
			i, i, i%100, i%1000, i*7, i%2 == 0, i%5)
	}
	records.WriteString(`]}`)

	var text bytes.Buffer
	text.WriteString(`{"prompt":"`)
	for text.Len() < 1<<19 {
		text.WriteString(`The quick brown fox – „quoted“ – jumps over the lazy dog. `)
	}
	text.WriteString(`","completion":"`)
	for text.Len() < 1<<20 {
		text.WriteString(`line with an escape\n and a \"quote\" \u00e9 `)
	}
	text.WriteString(`"}`)
	return map[string][]byte{"records": records.Bytes(), "text": text.Bytes()}
}

func BenchmarkParseJSON(b *testing.B) {
	for name, body := range jsonBenchBodies() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ParseJSON(body); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkEncodingJSON is the yardstick: encoding/json decoding the same bodies into any.
func BenchmarkEncodingJSON(b *testing.B) {
	for name, body := range jsonBenchBodies() {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				dec := json.NewDecoder(bytes.NewReader(body))
				dec.UseNumber()
				var v any
				if err := dec.Decode(&v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A 422 can always be encoded: non-finite numbers the reader accepted are echoed as Python
// spells them, wherever they sit in the input.
func TestNonFiniteInputsAreEchoedAsStrings(t *testing.T) {
	raw, perr := ParseJSON([]byte(`{"question": NaN, "opts": [1, Infinity, {"x": -Infinity}]}`))
	if perr != nil {
		t.Fatal(perr)
	}
	errs := New()
	o, _ := errs.Body(raw, true).Required().Object()
	o.Get("question").String()
	o.Get("opts").String()
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatalf("the 422 body cannot be encoded: %v", err)
	}
	for _, want := range []string{`"input":"NaN"`, `"input":[1,"Infinity",{"x":"-Infinity"}]`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("422 body %s does not contain %s", b, want)
		}
	}
	// The parsed body itself is left as it was.
	if opts := raw.(map[string]any)["opts"].([]any); !math.IsInf(opts[1].(float64), 1) {
		t.Errorf("the input was changed in place: %v", opts)
	}
}

// A missing credential echoes the object it is missing from, as FastAPI does, with that
// object's own credentials redacted.
func TestMissingSecretEchoesTheObject(t *testing.T) {
	errs := New()
	o, _ := errs.Body(map[string]any{"endpoint": "https://x.example", "password": "hunter2"}, true).Required().Object()
	o.Get("token").Required().String()
	b, _ := json.Marshal(errs)
	want := `{"detail":[{"type":"missing","loc":["body","token"],"msg":"Field required","input":{"endpoint":"https://x.example","password":"[redacted]"}}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
}

// A body echoed as raw text (not parsed: its Content-Type was not JSON) is redacted whole
// when it names a credential field; other text is echoed as FastAPI does.
func TestRawBodyTextRedaction(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"token":"sk-canary","endpoint":"https://x.example"}`, Redacted},
		{`api_key=sk-canary`, Redacted},
		{`{"Password": "hunter2"}`, Redacted},
		{`{"name":"demo"}`, `{"name":"demo"}`},
	} {
		errs := New()
		errs.Body(tc.body, true).Required().Object()
		if len(errs.Detail) != 1 || errs.Detail[0].Input != tc.want {
			t.Errorf("body %s: detail %+v, want input %q", tc.body, errs.Detail, tc.want)
		}
	}
}
