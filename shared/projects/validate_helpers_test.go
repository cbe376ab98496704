package projects

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
