package validate

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strconv"
	"testing"
)

// checkHTTPValidationError fails unless e is a well-formed 422 body: at least one problem,
// each with a type, a message and a loc whose first element is one of roots, and the whole
// marshalling to {"detail": [...]} that reads back the same.
func checkHTTPValidationError(t *testing.T, e *Errors, roots ...string) {
	t.Helper()
	if e == nil || len(e.Detail) == 0 {
		t.Fatal("an error without problems")
	}
	for _, d := range e.Detail {
		if d.Type == "" || d.Msg == "" || len(d.Loc) == 0 {
			t.Fatalf("malformed problem %+v", d)
		}
		root, _ := d.Loc[0].(string)
		if !slicesContains(roots, root) {
			t.Fatalf("problem at %v, want a loc starting with one of %v", d.Loc, roots)
		}
	}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	var back struct {
		Detail []map[string]any `json:"detail"`
	}
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Detail) != len(e.Detail) {
		t.Fatalf("%s does not read back as an HTTPValidationError: %v", raw, err)
	}
}

func slicesContains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// FuzzDecodeBody: an empty body is absent; a malformed one is exactly one json_invalid at
// ["body", pos]; an accepted one is present and survives a round trip through encoding/json.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{"", "{}", "[]", `{"a": [1, 2.5, "x", null, true]}`, "{", `{"a":}`, "nul", `"\ud800"`,
		"[[[[[[[[[[", "1e400", `{"a": NaN}`, "\xef\xbb\xbf{}", " \t\n", `{"k": "\u0000"}`, "-0", "12345678901234567890"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, present, errs := DecodeBody(data)
		if len(data) == 0 {
			if present || v != nil || errs != nil {
				t.Fatalf("empty body: %v %v %v", v, present, errs)
			}
			return
		}
		if errs != nil {
			if present || v != nil {
				t.Fatalf("value %v (present %v) with errors %v", v, present, errs)
			}
			checkHTTPValidationError(t, errs, "body")
			if len(errs.Detail) != 1 || errs.Detail[0].Type != "json_invalid" || len(errs.Detail[0].Loc) != 2 {
				t.Fatalf("malformed JSON answered %+v, want one json_invalid at [body, pos]", errs.Detail)
			}
			if pos, ok := errs.Detail[0].Loc[1].(int); !ok || pos < 0 || pos > len(data) {
				t.Fatalf("json_invalid at %v, outside the body of %d bytes", errs.Detail[0].Loc, len(data))
			}
			return
		}
		if !present {
			t.Fatal("a non-empty body decoded as absent")
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return // NaN and Infinity: Python accepts them, encoding/json cannot write them
		}
		again, present, errs := DecodeBody(raw)
		if errs != nil || !present || !reflect.DeepEqual(again, v) {
			t.Fatalf("round trip of %q: %v -> %s -> %v (%v)", data, v, raw, again, errs)
		}
	})
}

// FuzzPage: the pagination parameters either read within their bounds (and as sent, when
// sent) or are reported under ["query", name].
func FuzzPage(f *testing.F) {
	for _, c := range [][2]string{{"", ""}, {"0", "1"}, {"10", "100000"}, {"-1", "0"}, {"x", "100001"},
		{"1.0", "1e3"}, {" 5", "+7"}, {"99999999999999999999", "٣"}, {"0x10", "1_0"}} {
		f.Add(c[0], c[1], true, true)
	}
	f.Fuzz(func(t *testing.T, start, limit string, sendStart, sendLimit bool) {
		q := url.Values{}
		if sendStart {
			q.Set("starting_token", start)
		}
		if sendLimit {
			q.Set("limit", limit)
		}
		errs := New()
		s, l := errs.Page(q)
		if s < 0 || l < 1 || l > MaxLimit {
			t.Fatalf("page (%d, %d) out of bounds", s, l)
		}
		bad := map[string]bool{}
		if e, ok := errs.Err().(*Errors); ok {
			checkHTTPValidationError(t, e, "query")
			for _, d := range e.Detail {
				if len(d.Loc) != 2 {
					t.Fatalf("problem at %v, want [query, name]", d.Loc)
				}
				name, _ := d.Loc[1].(string)
				bad[name] = true
			}
		}
		for _, p := range []struct {
			name, sent string
			isSent     bool
			got, def   int
		}{{"starting_token", start, sendStart, s, 0}, {"limit", limit, sendLimit, l, DefaultLimit}} {
			switch {
			case !p.isSent && (bad[p.name] || p.got != p.def):
				t.Fatalf("%s not sent: %d, errors %v, want the default %d", p.name, p.got, bad, p.def)
			case p.isSent && !bad[p.name]:
				if n, err := strconv.Atoi(p.sent); err == nil && n != p.got {
					t.Fatalf("%s=%q read as %d", p.name, p.sent, p.got)
				}
			}
		}
	})
}
