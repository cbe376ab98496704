package traces

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// filterTrace is the trace every filter case is tested against.
func filterTrace() *store.Trace {
	upd := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	return &store.Trace{ID: "aaaaaaaa-0000-4000-8000-000000000001", RunID: "bbbbbbbb-0000-4000-8000-000000000002",
		ProjectID: "cccccccc-0000-4000-8000-000000000003", SessionID: ptr("dddddddd-0000-4000-8000-000000000004"),
		CreatedAt: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC), UpdatedAt: &upd, Type: "trace",
		Name: "Chat", RecordContent: store.RecordContent{Input: store.StringContent("What is the Capital?"), Output: store.StringContent("Paris")}, Model: ptr("gpt-4o"),
		Tags: []string{"prod", "EU"}, StatusCode: ptr(int64(200)), Temperature: ptr(0.7), IsComplete: true,
		Metrics: map[string]store.MetricValue{"correctness": {Number: ptr(0.5)}, "tone": {Category: ptr("calm")}}}
}

// parseFilter reads one filter from JSON as the search does.
func parseFilter(t *testing.T, js string) *filter {
	t.Helper()
	raw, jerr := validate.ParseJSON([]byte(`{"v":` + js + `}`))
	if jerr != nil {
		t.Fatal(jerr)
	}
	errs := validate.New()
	o, _ := errs.Body(raw, true).Object()
	f, ok := readFilter(o.Get("v"))
	if !ok || errs.Len() > 0 {
		t.Fatalf("%s: %v", js, errs)
	}
	return f
}

func TestFilterKindsAndOperators(t *testing.T) {
	tr := filterTrace()
	for _, tc := range []struct {
		filter string
		want   bool
	}{
		// text
		{`{"type":"text","name":"input","operator":"eq","value":"What is the Capital?"}`, true},
		{`{"type":"text","name":"input","operator":"eq","value":"what is the capital?"}`, false},
		{`{"type":"text","name":"input","operator":"eq","value":"what is the capital?","case_sensitive":false}`, true},
		{`{"type":"text","name":"name","operator":"ne","value":"Chat"}`, false},
		{`{"type":"text","name":"name","operator":"ne","value":"chat"}`, true},
		{`{"type":"text","name":"name","operator":"ne","value":"chat","case_sensitive":false}`, false},
		{`{"type":"text","name":"input","operator":"contains","value":"Capital"}`, true},
		{`{"type":"text","name":"input","operator":"contains","value":"capital"}`, false},
		{`{"type":"text","column_id":"input","operator":"contains","value":"CAPITAL","case_sensitive":false}`, true},
		{`{"type":"text","name":"model","operator":"one_of","value":["claude","gpt-4o"]}`, true},
		{`{"type":"text","name":"model","operator":"one_of","value":["claude","GPT-4O"]}`, false},
		{`{"type":"text","name":"model","operator":"one_of","value":["GPT-4O"],"case_sensitive":false}`, true},
		{`{"type":"text","name":"model","operator":"not_in","value":["claude"]}`, true},
		{`{"type":"text","name":"model","operator":"not_in","value":["claude","gpt-4o"]}`, false},
		{`{"type":"text","name":"provider","operator":"ne","value":"x"}`, false}, // no value: no match
		// id
		{`{"type":"id","name":"id","value":"aaaaaaaa-0000-4000-8000-000000000001"}`, true},
		{`{"type":"id","name":"id","operator":"eq","value":"AAAAAAAA-0000-4000-8000-000000000001"}`, true},
		{`{"type":"id","name":"trace_id","operator":"ne","value":"aaaaaaaa-0000-4000-8000-000000000001"}`, false},
		{`{"type":"id","name":"session_id","operator":"one_of","value":["dddddddd-0000-4000-8000-000000000004","x"]}`, true},
		{`{"type":"id","name":"run_id","operator":"not_in","value":["bbbbbbbb-0000-4000-8000-000000000002"]}`, false},
		{`{"type":"id","name":"project_id","operator":"contains","value":"cccc"}`, true},
		{`{"type":"id","name":"parent_id","operator":"ne","value":"x"}`, false},
		// number
		{`{"type":"number","name":"status_code","operator":"eq","value":200}`, true},
		{`{"type":"number","name":"status_code","operator":"ne","value":200}`, false},
		{`{"type":"number","name":"temperature","operator":"gt","value":0.7}`, false},
		{`{"type":"number","name":"temperature","operator":"gte","value":0.7}`, true},
		{`{"type":"number","name":"temperature","operator":"lt","value":0.8}`, true},
		{`{"type":"number","name":"temperature","operator":"lte","value":0.6}`, false},
		{`{"type":"number","name":"status_code","operator":"between","value":[200,299]}`, true},
		{`{"type":"number","name":"status_code","operator":"between","value":[201,299]}`, false},
		{`{"type":"number","name":"metrics/correctness","operator":"between","value":[0.5,0.5]}`, true},
		{`{"type":"number","name":"metrics/tone","operator":"gte","value":0}`, false}, // a category is not a number
		// boolean
		{`{"type":"boolean","name":"is_complete","value":true}`, true},
		{`{"type":"boolean","name":"is_complete","operator":"ne","value":true}`, false},
		{`{"type":"boolean","name":"has_children","operator":"eq","value":false}`, true},
		// date
		{`{"type":"date","name":"created_at","operator":"eq","value":"2026-01-01T11:00:00+01:00"}`, true},
		{`{"type":"date","name":"created_at","operator":"ne","value":"2026-01-01T10:00:00Z"}`, false},
		{`{"type":"date","name":"created_at","operator":"gt","value":"2026-01-01T10:00:00Z"}`, false},
		{`{"type":"date","name":"created_at","operator":"gte","value":"2026-01-01T10:00:00Z"}`, true},
		{`{"type":"date","name":"updated_at","operator":"lt","value":"2026-01-01T12:00:01Z"}`, true},
		{`{"type":"date","name":"updated_at","operator":"lte","value":"2026-01-01T11:59:59Z"}`, false},
		// collection
		{`{"type":"collection","name":"tags","operator":"eq","value":["EU","prod"]}`, true},
		{`{"type":"collection","name":"tags","operator":"eq","value":["prod"]}`, false},
		{`{"type":"collection","name":"tags","operator":"eq","value":["eu","PROD"],"case_sensitive":false}`, true},
		{`{"type":"collection","name":"tags","operator":"contains","value":"prod"}`, true},
		{`{"type":"collection","name":"tags","operator":"contains","value":["prod","eu"]}`, false},
		{`{"type":"collection","name":"tags","operator":"contains","value":["prod","eu"],"case_sensitive":false}`, true},
		{`{"type":"collection","name":"tags","operator":"one_of","value":["x","EU"]}`, true},
		{`{"type":"collection","name":"tags","operator":"one_of","value":["x","eu"]}`, false},
		{`{"type":"collection","name":"tags","operator":"not_in","value":["x","eu"]}`, true},
		{`{"type":"collection","name":"tags","operator":"not_in","value":["x","eu"],"case_sensitive":false}`, false},
		// fully_annotated: no annotations are stored
		{`{"type":"fully_annotated","user_ids":["eeeeeeee-0000-4000-8000-000000000005"]}`, false},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			if got := parseFilter(t, tc.filter).match(tr); got != tc.want {
				t.Errorf("match = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestFilterValidation(t *testing.T) {
	for _, tc := range []struct {
		filter, typ, loc string
	}{
		{`{"type":"date","name":"created_at","operator":"eq","value":"yesterday"}`, "datetime_from_date_parsing", "[body v date value]"},
		{`{"type":"date","name":"created_at","value":"2026-01-01T00:00:00Z"}`, "missing", "[body v date operator]"},
		{`{"type":"number","name":"status_code","operator":"eq","value":[1,2]}`, "value_error", "[body v number value]"},
		{`{"type":"number","name":"status_code","operator":"between","value":[3,2]}`, "value_error", "[body v number value]"},
		{`{"type":"boolean","name":"is_complete","value":"maybe"}`, "bool_parsing", "[body v boolean value]"},
		{`{"type":"collection","name":"tags","operator":"ne","value":"x"}`, "enum", "[body v collection operator]"},
		{`{"type":"id","name":"id","operator":"gt","value":"x"}`, "enum", "[body v id operator]"},
		{`{"type":"text","name":"input","operator":"eq"}`, "missing", "[body v text value]"},
		{`{"type":"fully_annotated","user_ids":[]}`, "too_short", "[body v fully_annotated user_ids]"},
		{`{"type":7}`, "union_tag_invalid", "[body v]"},
	} {
		t.Run(tc.filter, func(t *testing.T) {
			raw, _ := validate.ParseJSON([]byte(`{"v":` + tc.filter + `}`))
			errs := validate.New()
			o, _ := errs.Body(raw, true).Object()
			readFilter(o.Get("v"))
			if errs.Len() == 0 {
				t.Fatal("no error")
			}
			d := errs.Detail[0]
			b, _ := json.Marshal(d)
			if d.Type != tc.typ || fmt.Sprint(d.Loc) != tc.loc {
				t.Errorf("got %s, want %s at %s", b, tc.typ, tc.loc)
			}
		})
	}
}

func validateJSON(s string) (any, error) {
	raw, jerr := validate.ParseJSON([]byte(s))
	if jerr != nil {
		return nil, jerr
	}
	return raw, nil
}

func newValidateErrors() *validate.Errors { return validate.New() }
