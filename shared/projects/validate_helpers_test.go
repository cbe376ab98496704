package projects

import (
	"encoding/json"
	"testing"

	"github.com/evalobs/evalapi/shared/validate"
)

// detailOf runs read on body (JSON text) and returns the 422 body it records, {"detail":[]}
// when it records nothing.
func detailOf(t *testing.T, body string, read func(errs *validate.Errors, raw any, present bool)) string {
	t.Helper()
	raw, present, jerr := validate.DecodeBody([]byte(body))
	if jerr != nil {
		t.Fatalf("test body is not JSON: %v", jerr)
	}
	errs := validate.New()
	read(errs, raw, present)
	if errs.Detail == nil {
		errs.Detail = []validate.Error{}
	}
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
