package store

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// The content splitter reads what encoding/json reads from a marshalled RecordContent, on
// random contents of every shape, and gives up (false) on what it does not know.
func TestDecodeRecordContentMatchesJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	values := []string{`"plain"`, `"esc \"quoted\" \\ back\\"`, `"\u2028 \ud83d\ude00"`, `null`, `true`, `12.5e-3`, `-0`,
		`[]`, `{}`, `[1,"a",{"b":[null,{"c":"}]"}]}]`, `{"role":"user","content":"hi, {there}"}`,
		`[{"type":"text","text":"a]b"},{"type":"image_url","image_url":{"url":"x"}}]`, `"ends with backslash \\"`}
	pick := func() Content {
		if rng.IntN(4) == 0 {
			return nil
		}
		return Content(values[rng.IntN(len(values))])
	}
	took := 0
	for range 5000 {
		c := RecordContent{Input: pick(), Output: pick(), RedactedInput: pick(), RedactedOutput: pick(), Tools: pick(), Events: pick()}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var want, got RecordContent
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatal(err)
		}
		if decodeRecordContent(string(b), &got) {
			took++
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s:\n split %+v\n json  %+v", b, got, want)
			}
		}
	}
	if took < 4900 {
		t.Fatalf("the splitter took %d of 5000 marshalled contents", took)
	}
	for _, bad := range []string{`{"Input":"x"}`, `{"other":1}`, `{"input":}`, `{"input":"x"`, `{"input":[1,2}`, `x`, `{"input":"x"} `} {
		var got RecordContent
		if decodeRecordContent(bad, &got) {
			t.Errorf("%s: taken as %+v", bad, got)
		}
	}
}

// ContentText reads each field's text from the raw content as the decoded content's Text
// does, and refuses raw text that is not content as the store writes it.
func TestContentTextMatchesDecodedText(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	values := []string{`"plain"`, `"esc \"quoted\" \\ back\\"`, `"\u2028 \ud83d\ude00"`, `"caf\u00e9"`, `null`, `true`,
		`12.5e-3`, `[]`, `{}`, `[1,"a",{"b":[null,{"c":"}]"}]}]`, `{"role":"user","content":"hi, {there}"}`, `""`}
	pick := func() Content {
		if rng.IntN(3) == 0 {
			return nil
		}
		return Content(values[rng.IntN(len(values))])
	}
	for range 3000 {
		c := RecordContent{Input: pick(), Output: pick(), Tools: pick()}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		raw := string(b)
		if len(c.Input)+len(c.Output)+len(c.Tools) == 0 {
			raw = "" // a record with no content has no content attribute
		}
		var dec RecordContent
		if raw != "" {
			if err := json.Unmarshal(b, &dec); err != nil {
				t.Fatal(err)
			}
		}
		for field, want := range map[string]string{"input": dec.Input.Text(), "output": dec.Output.Text(), "redacted_input": ""} {
			got, ok := ContentText(raw, field)
			if !ok || got != want {
				t.Fatalf("%s: ContentText(%s) = %q, %v; want %q", raw, field, got, ok, want)
			}
		}
	}
	for _, raw := range []string{`{"input":"x"`, `{"input":"x"}tail`, `["input"]`, `{"input":}`, `{"input":"x",}`} {
		if _, ok := ContentText(raw, "input"); ok {
			t.Errorf("ContentText(%s) took text the store does not write", raw)
		}
	}
}

// Content.Text is a string's text, any other value's JSON, and nothing for no content.
func TestContentText(t *testing.T) {
	for _, tc := range []struct{ c, want string }{
		{``, ``}, {`null`, ``}, {`"a b"`, `a b`}, {`"say \"hi\"\n"`, "say \"hi\"\n"}, {`"caf\u00e9"`, `café`},
		{`[{"role":"user","content":"a"}]`, `[{"role":"user","content":"a"}]`}, {`12`, `12`}, {`""`, ``},
	} {
		if got := Content(tc.c).Text(); got != tc.want {
			t.Errorf("Content(%s).Text() = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// unquote reads a JSON string as encoding/json does, and refuses what encoding/json refuses.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"plain"`, `"say \"hi\"\n\t\\ \/ \b\f\r"`, `"caf\u00e9 \ud83d\ude00"`, `"lone \ud83d x"`,
		`"reversed \ude00\ud83d"`, `"pair split \ud83d\u0041"`, "\"bad \xff utf8\"", `"ctl ` + "\x01" + `"`, `"bad \x"`, `"\u12"`,
		`"ends \\"`, `"\"`, `""`, `"é ✓ 😀"`, `"\uD83D\uDE00 upper"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		got, ok := unquote(q)
		var want string
		err := json.Unmarshal([]byte(q), &want)
		if ok && (err != nil || got != want) {
			t.Fatalf("unquote(%q) = %q; encoding/json: %q, %v", q, got, want, err)
		}
		if !ok && err == nil && strings.TrimSpace(q) == q { // encoding/json takes white space around
			t.Fatalf("unquote(%q) refused what encoding/json reads as %q", q, want)
		}
	})
}
