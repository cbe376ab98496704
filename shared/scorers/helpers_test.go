package scorers

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/validate"
)

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
