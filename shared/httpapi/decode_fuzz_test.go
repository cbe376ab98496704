package httpapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
)

// FuzzDecodeBody reads any body under any limit: the outcome is a value (present exactly
// when the body is not empty), a 413 (exactly when the body is over the limit) or a 422
// whose answer is a well-formed HTTPValidationError at ["body", pos] — never a 500.
func FuzzDecodeBody(f *testing.F) {
	for _, s := range []string{"", "{}", `{"name": "x", "rows": [[1, 2]]}`, "{", "[1,]", `"\x00"`, "\xff\xfe{\x00}\x00", "nan"} {
		f.Add([]byte(s), int64(0))
		f.Add([]byte(s), int64(3))
	}
	f.Fuzz(func(t *testing.T, body []byte, limit int64) {
		r := httptest.NewRequest(http.MethodPost, "/v2/datasets", bytes.NewReader(body))
		v, present, err := DecodeBody(r, limit)
		max := limit
		if max <= 0 {
			max = MaxBody
		}
		if err == nil {
			if int64(len(body)) > max {
				t.Fatalf("a body of %d bytes accepted under the limit %d", len(body), max)
			}
			if present != (len(body) > 0) || (!present && v != nil) {
				t.Fatalf("body %q: present %v, value %v", body, present, v)
			}
			return
		}
		if v != nil || present {
			t.Fatalf("value %v with error %v", v, err)
		}
		rec := httptest.NewRecorder()
		WriteError(rec, r, slog.New(slog.DiscardHandler), err)
		switch rec.Code {
		case http.StatusRequestEntityTooLarge:
			if int64(len(body)) <= max {
				t.Fatalf("413 for %d bytes under the limit %d", len(body), max)
			}
		case http.StatusUnprocessableEntity:
			var out struct {
				Detail []struct {
					Type string `json:"type"`
					Loc  []any  `json:"loc"`
					Msg  string `json:"msg"`
				} `json:"detail"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || len(out.Detail) != 1 {
				t.Fatalf("422 body %s is not one problem: %v", rec.Body, err)
			}
			d := out.Detail[0]
			if d.Type == "" || d.Msg == "" || len(d.Loc) != 2 || d.Loc[0] != "body" {
				t.Fatalf("422 problem %+v, want a typed problem at [body, pos]", d)
			}
			if pos, ok := d.Loc[1].(float64); !ok || pos < 0 || pos > float64(len(body)) {
				t.Fatalf("problem at %v, outside the body of %d bytes", d.Loc, len(body))
			}
		default:
			t.Fatalf("answered %d %s", rec.Code, rec.Body)
		}
	})
}
