package scorers

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/evalobs/evalapi/shared/validate"
)

// sameJSON fails t unless got and want (JSON texts) hold the same value.
func sameJSON(t *testing.T, got, want string) {
	t.Helper()
	var g, w any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("got is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want is not JSON: %v\n%s", err, want)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// bodyOf is the 422 body errs would answer ({"detail":[]} when it holds nothing).
func bodyOf(t *testing.T, errs *validate.Errors) string {
	t.Helper()
	if errs.Detail == nil {
		errs.Detail = []validate.Error{}
	}
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// decode parses a test body as the handler does.
func decode(t *testing.T, body string) (any, bool) {
	t.Helper()
	raw, present, jerr := validate.DecodeBody([]byte(body))
	if jerr != nil {
		t.Fatalf("test body is not JSON: %v", jerr)
	}
	return raw, present
}

func ptr[T any](v T) *T { return &v }
