package signals

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/apitest"
)

const unknownID = "0e4b5d7c-1f2a-4b3c-9d8e-7f6a5b4c3d2e"

func TestUnauthenticated(t *testing.T) {
	h := newHarness(t, nil)
	for _, m := range []string{"PUT", "GET"} {
		code, body := h.do(nil, m, configPath(unknownID, "x"), `{"model":"m"}`)
		if code != http.StatusUnauthorized {
			t.Fatalf("%s: %d %s", m, code, body)
		}
	}
}

func TestLogStreamEveryFieldAndReplace(t *testing.T) {
	h := newHarness(t, nil)
	pid, ls, _ := h.runs(h.org)
	code, resp := h.do(&h.org.User, "GET", configPath(pid, ls), "")
	if code != 404 {
		t.Fatalf("get before put: %d %s", code, resp)
	}
	apitest.SameJSON(t, resp, `{"detail":"Signals configuration not found"}`)

	body := `{"model":"gpt-signals","user_preferences":{"focus_on":"refunds"},
		"schedule":{"cron":"0  9 * * 1-5","timezone":"Europe/Paris"},"start_date":"2026-06-01","end_date":"2026-06-01",
		"scheduled_runs_enabled":true,"notification_severities":["LOW","CRITICAL","LOW"]}`
	code, resp = h.do(&h.org.User, "PUT", configPath(pid, ls), body)
	if code != 200 {
		t.Fatalf("put: %d %s", code, resp)
	}
	var got struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(resp), &got); err != nil {
		t.Fatal(err)
	}
	want := func(updated string) string {
		return fmt.Sprintf(`{"data":{"id":%q,"project_id":%q,"run_id":%q,"run_mode":"SCHEDULED",
			"schedule":{"cron":"0 9 * * 1-5","type":"CRON","timezone":"Europe/Paris"},"start_date":"2026-06-01","end_date":"2026-06-01",
			"scheduled_runs_enabled":true,"model":"gpt-signals","user_preferences":{"focus_on":"refunds","dont_focus_on":""},
			"notification_severities":["LOW","CRITICAL"],"webhook_url":null,"webhook_secret_set":false,"created_at":"2026-05-06T07:08:09Z","updated_at":%q}}`, got.Data.ID, pid, ls, updated)
	}
	apitest.SameJSON(t, resp, want("2026-05-06T07:08:09Z"))
	_, resp = h.do(&h.org.ReadOnly, "GET", configPath(pid, ls), "")
	apitest.SameJSON(t, resp, want("2026-05-06T07:08:09Z"))

	// A replace keeps id and created_at, moves updated_at, and takes the defaults again.
	h.clock.Advance(time.Hour)
	code, resp = h.do(&h.org.User, "PUT", configPath(pid, ls), `{"model":"m2"}`)
	if code != 200 {
		t.Fatalf("replace: %d %s", code, resp)
	}
	apitest.SameJSON(t, resp, fmt.Sprintf(`{"data":{"id":%q,"project_id":%q,"run_id":%q,"run_mode":"ON_DEMAND","schedule":null,
		"start_date":null,"end_date":null,"scheduled_runs_enabled":false,"model":"m2","user_preferences":{"focus_on":"","dont_focus_on":""},
		"notification_severities":["HIGH","CRITICAL"],"webhook_url":null,"webhook_secret_set":false,"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T08:08:09Z"}}`, got.Data.ID, pid, ls))

	// Enabled without a schedule, or a schedule not enabled, is on demand.
	for _, b := range []string{`{"model":"m","scheduled_runs_enabled":true}`, `{"model":"m","schedule":{"cron":"* * * * *"}}`} {
		_, resp = h.do(&h.org.User, "PUT", configPath(pid, ls), b)
		if !strings.Contains(resp, `"run_mode":"ON_DEMAND"`) {
			t.Errorf("%s: %s", b, resp)
		}
	}
}

func TestExperimentVariant(t *testing.T) {
	h := newHarness(t, nil)
	pid, _, exp := h.runs(h.org)
	code, resp := h.do(&h.org.User, "PUT", configPath(pid, exp), `{"model":"m","user_preferences":{"dont_focus_on":"style"}}`)
	if code != 200 {
		t.Fatalf("put: %d %s", code, resp)
	}
	var got map[string]map[string]any
	if err := json.Unmarshal([]byte(resp), &got); err != nil {
		t.Fatal(err)
	}
	apitest.SameJSON(t, resp, fmt.Sprintf(`{"data":{"id":%q,"project_id":%q,"run_id":%q,"run_mode":"ON_DEMAND","schedule":null,
		"start_date":null,"end_date":null,"scheduled_runs_enabled":false,"model":"m","user_preferences":{"focus_on":"","dont_focus_on":"style"},
		"notification_severities":[],"webhook_url":null,"webhook_secret_set":false,"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z"}}`, got["data"]["id"], pid, exp))

	code, resp = h.do(&h.org.User, "PUT", configPath(pid, exp), `{"model":"m","schedule":{"cron":"0 * * * *"},"start_date":"2026-01-01",
		"end_date":"2026-02-01","scheduled_runs_enabled":false,"notification_severities":["LOW"]}`)
	if code != 422 {
		t.Fatalf("log-stream fields: %d %s", code, resp)
	}
	apitest.SameJSON(t, resp, `{"detail":[
		{"type":"extra_forbidden","loc":["body","schedule"],"msg":"Extra inputs are not permitted","input":{"cron":"0 * * * *"}},
		{"type":"extra_forbidden","loc":["body","start_date"],"msg":"Extra inputs are not permitted","input":"2026-01-01"},
		{"type":"extra_forbidden","loc":["body","end_date"],"msg":"Extra inputs are not permitted","input":"2026-02-01"},
		{"type":"extra_forbidden","loc":["body","scheduled_runs_enabled"],"msg":"Extra inputs are not permitted","input":false},
		{"type":"extra_forbidden","loc":["body","notification_severities"],"msg":"Extra inputs are not permitted","input":["LOW"]}]}`)
}

func TestRefusals(t *testing.T) {
	h := newHarness(t, nil)
	pid, ls, _ := h.runs(h.org)
	otherPID, otherLS, _ := h.runs(h.other)
	secondPID, _, _ := h.runs(h.org)
	long := strings.Repeat("x", 2001)
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             string
	}{
		{"invalid cron", configPath(pid, ls), `{"model":"m","schedule":{"cron":"61 * * * *"}}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","schedule","cron"],"msg":"Value error, invalid cron expression '61 * * * *': value 61 in the minute field is out of range (0-59)","input":"61 * * * *","ctx":{"error":{}}}]}`},
		{"six fields", configPath(pid, ls), `{"model":"m","schedule":{"cron":"0 0 * * * *"}}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","schedule","cron"],"msg":"Value error, invalid cron expression '0 0 * * * *': expected 5 fields (minute hour day-of-month month day-of-week), got 6","input":"0 0 * * * *","ctx":{"error":{}}}]}`},
		{"both day fields restricted", configPath(pid, ls), `{"model":"m","schedule":{"cron":"0 9 1 * MON"}}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","schedule","cron"],"msg":"Value error, invalid cron expression '0 9 1 * MON': day-of-month (1) and day-of-week (MON) are both restricted; cron runs when either matches, which the scheduler cannot express: set one of them to *","input":"0 9 1 * MON","ctx":{"error":{}}}]}`},
		{"descriptor", configPath(pid, ls), `{"model":"m","schedule":{"cron":"@daily"}}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","schedule","cron"],"msg":"Value error, invalid cron expression '@daily': expected 5 fields (minute hour day-of-month month day-of-week), got 1","input":"@daily","ctx":{"error":{}}}]}`},
		{"unknown time zone", configPath(pid, ls), `{"model":"m","schedule":{"cron":"0 9 * * *","timezone":"Mars/Olympus","type":"RRULE"}}`, 422,
			`{"detail":[{"type":"literal_error","loc":["body","schedule","type"],"msg":"Input should be 'CRON'","input":"RRULE","ctx":{"expected":"'CRON'"}},
			{"type":"value_error","loc":["body","schedule","timezone"],"msg":"Value error, unknown time zone 'Mars/Olympus'","input":"Mars/Olympus","ctx":{"error":{}}}]}`},
		{"end before start", configPath(pid, ls), `{"model":"m","start_date":"2026-06-02","end_date":"2026-06-01"}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","end_date"],"msg":"Value error, end_date 2026-06-01 is before start_date 2026-06-02","input":"2026-06-01","ctx":{"error":{}}}]}`},
		{"unknown severity", configPath(pid, ls), `{"model":"m","notification_severities":["HIGH","URGENT"]}`, 422,
			`{"detail":[{"type":"enum","loc":["body","notification_severities",1],"msg":"Input should be 'LOW', 'MEDIUM', 'HIGH' or 'CRITICAL'","input":"URGENT","ctx":{"expected":"'LOW', 'MEDIUM', 'HIGH' or 'CRITICAL'"}}]}`},
		{"model and preferences", configPath(pid, ls), `{"model":"","user_preferences":{"focus_on":"` + long + `"}}`, 422,
			`{"detail":[{"type":"string_too_short","loc":["body","model"],"msg":"String should have at least 1 character","input":"","ctx":{"min_length":1}},
			{"type":"string_too_long","loc":["body","user_preferences","focus_on"],"msg":"String should have at most 2000 characters","input":"` + long + `","ctx":{"max_length":2000}}]}`},
		{"null where a default applies", configPath(pid, ls),
			`{"model":"m","user_preferences":{"focus_on":null},"schedule":{"cron":"0 9 * * *","timezone":null,"type":null}}`, 422,
			`{"detail":[{"type":"string_type","loc":["body","user_preferences","focus_on"],"msg":"Input should be a valid string","input":null},
			{"type":"literal_error","loc":["body","schedule","type"],"msg":"Input should be 'CRON'","input":null,"ctx":{"expected":"'CRON'"}},
			{"type":"string_type","loc":["body","schedule","timezone"],"msg":"Input should be a valid string","input":null}]}`},
		{"other organization's run", configPath(otherPID, otherLS), `{"model":"m"}`, 404, `{"detail":"Run not found"}`},
		{"run of another project", configPath(secondPID, ls), `{"model":"m"}`, 404, `{"detail":"Run not found"}`},
		{"unknown run", configPath(pid, unknownID), `{"model":"m"}`, 404, `{"detail":"Run not found"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(&h.org.User, "PUT", tc.path, tc.body)
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, resp, tc.status)
			}
			apitest.SameJSON(t, resp, tc.want)
		})
	}
	code, resp := h.do(&h.org.ReadOnly, "PUT", configPath(pid, ls), `{"model":"m"}`)
	if code != 403 {
		t.Fatalf("read-only: %d %s", code, resp)
	}
	// Nothing refused was stored; another organization cannot read a configuration.
	if code, _ := h.do(&h.org.User, "GET", configPath(pid, ls), ""); code != 404 {
		t.Fatalf("a refused PUT stored a configuration: %d", code)
	}
	if code, _ := h.do(&h.org.User, "PUT", configPath(pid, ls), `{"model":"m"}`); code != 200 {
		t.Fatal(code)
	}
	if code, _ := h.do(&h.other.User, "GET", configPath(pid, ls), ""); code != 404 {
		t.Fatalf("other organization read a configuration: %d", code)
	}
}
