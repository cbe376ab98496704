package signals

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/notify"
	"github.com/evalobs/evalapi/shared/store"
)

func runsPath(pid, rid string) string {
	return "/v2/projects/" + pid + "/runs/" + rid + "/signals/runs"
}
func findingsPath(pid, rid string) string {
	return "/v2/projects/" + pid + "/runs/" + rid + "/signals/findings"
}

func (h *harness) logTraces(orgID, pid, rid string, names ...string) []string {
	h.t.Helper()
	var trs []store.Trace
	var ids []string
	for i, n := range names {
		tr := store.Trace{ID: uuid.NewString(), RunID: rid, ProjectID: pid, OrgID: orgID,
			CreatedAt: h.clock.Now().Add(time.Duration(i) * time.Millisecond), Type: "trace", Name: n, IsComplete: true}
		tr.Input, tr.Output = store.StringContent("q"), store.StringContent("a")
		trs = append(trs, tr)
		ids = append(ids, tr.ID)
	}
	if _, err := store.PutTraces(h.t.Context(), h.tbl, trs); err != nil {
		h.t.Fatal(err)
	}
	h.clock.Advance(time.Minute)
	return ids
}

func TestOnDemandRunsAndReading(t *testing.T) {
	h := newHarness(t, nil)
	pid, ls, _ := h.runs(h.org)
	code, resp := h.do(&h.org.User, "POST", runsPath(pid, ls), "")
	if code != 404 {
		t.Fatalf("run without configuration: %d %s", code, resp)
	}
	if code, resp := h.do(&h.org.User, "PUT", configPath(pid, ls), `{"model":"m","notification_severities":["CRITICAL"]}`); code != 200 {
		t.Fatalf("put: %d %s", code, resp)
	}
	h.model.findings = []fakeFinding{
		{match: "refund", kind: "quality", title: "Refunds answered wrongly", severity: "CRITICAL"},
		{match: "refund", kind: "cost", title: "Long answers", severity: "LOW"},
	}
	ids := h.logTraces(h.org.ID, pid, ls, "refund 1", "refund 2", "other")

	if code, resp := h.do(&h.org.ReadOnly, "POST", runsPath(pid, ls), ""); code != 403 {
		t.Fatalf("read-only start: %d %s", code, resp)
	}
	code, resp = h.do(&h.org.User, "POST", runsPath(pid, ls), "")
	if code != 202 || !strings.Contains(resp, `"state":"queued"`) {
		t.Fatalf("start: %d %s", code, resp)
	}
	var started struct{ Data struct{ ID string } }
	if err := json.Unmarshal([]byte(resp), &started); err != nil {
		t.Fatal(err)
	}

	code, resp = h.do(&h.org.ReadOnly, "GET", runsPath(pid, ls)+"/"+started.Data.ID, "")
	if code != 200 {
		t.Fatalf("read: %d %s", code, resp)
	}
	var got struct {
		Data struct {
			State    string
			NewCount int64 `json:"new_count"`
			Findings []struct {
				ID, Title, Severity, Change string
				TraceIDs                    []string `json:"trace_ids"`
			}
		}
	}
	if err := json.Unmarshal([]byte(resp), &got); err != nil {
		t.Fatal(err)
	}
	if got.Data.State != "succeeded" || got.Data.NewCount != 2 || len(got.Data.Findings) != 2 ||
		strings.Join(got.Data.Findings[0].TraceIDs, ",") != ids[0]+","+ids[1] || got.Data.Findings[0].Change != "new" {
		t.Fatalf("run: %s", resp)
	}
	if len(h.pub.events) != 1 || h.pub.events[0].Data.Severity != "CRITICAL" {
		t.Fatalf("notified: %+v", h.pub.events)
	}

	// Newest first, paginated.
	h.logTraces(h.org.ID, pid, ls, "refund 3")
	h.clock.Advance(time.Second) // runs are ordered by creation time, their ids being random
	if code, resp := h.do(&h.org.User, "POST", runsPath(pid, ls), ""); code != 202 {
		t.Fatalf("second start: %d %s", code, resp)
	}
	code, resp = h.do(&h.org.User, "GET", runsPath(pid, ls)+"?limit=1", "")
	if code != 200 || !strings.Contains(resp, `"paginated":true`) || !strings.Contains(resp, `"next_starting_token":1`) || !strings.Contains(resp, `"recurring_count":2`) {
		t.Fatalf("list runs: %d %s", code, resp)
	}
	code, resp = h.do(&h.org.User, "GET", runsPath(pid, ls)+"?starting_token=1&limit=1", "")
	if code != 200 || !strings.Contains(resp, started.Data.ID) || !strings.Contains(resp, `"paginated":false`) {
		t.Fatalf("list runs page 2: %d %s", code, resp)
	}
	code, resp = h.do(&h.org.User, "GET", findingsPath(pid, ls), "")
	if code != 200 || strings.Count(resp, `"change":"recurring"`) != 2 || strings.Index(resp, `"recurring"`) > strings.Index(resp, `"new"`) {
		t.Fatalf("list findings: %d %s", code, resp)
	}

	// Acknowledge: read-only refused, idempotent, other organization 404.
	fid := got.Data.Findings[0].ID
	ack := findingsPath(pid, ls) + "/" + fid + "/acknowledge"
	if code, _ := h.do(&h.org.ReadOnly, "POST", ack, ""); code != 403 {
		t.Fatalf("read-only ack: %d", code)
	}
	for range 2 {
		code, resp = h.do(&h.org.User, "POST", ack, "")
		if code != 200 || !strings.Contains(resp, `"acknowledged":true`) || !strings.Contains(resp, h.org.User.UserID) {
			t.Fatalf("ack: %d %s", code, resp)
		}
	}
	for _, p := range []string{ack, runsPath(pid, ls) + "/" + started.Data.ID} {
		method := "GET"
		if strings.HasSuffix(p, "acknowledge") {
			method = "POST"
		}
		if code, resp := h.do(&h.other.User, method, p, ""); code != 404 {
			t.Fatalf("other organization %s: %d %s", p, code, resp)
		}
	}
	if code, resp := h.do(&h.org.User, "GET", runsPath(pid, ls)+"/"+unknownID, ""); code != 404 || !strings.Contains(resp, "Signals run not found") {
		t.Fatalf("unknown run: %d %s", code, resp)
	}
	if code, _ := h.do(&h.org.User, "GET", runsPath(pid, ls)+"/not-a-uuid", ""); code != 422 {
		t.Fatalf("bad id: %d", code)
	}
}

func TestPutKeepsScheduleAndWebhook(t *testing.T) {
	h := newHarness(t, nil)
	pid, ls, _ := h.runs(h.org)
	secret := notify.NewSecret()
	body := `{"model":"m","schedule":{"cron":"*/10 * * * *","timezone":"Europe/Paris"},"scheduled_runs_enabled":true,
		"webhook_url":"https://hooks.example.com/T0KEN/x","webhook_secret":%q}`
	code, resp := h.do(&h.org.User, "PUT", configPath(pid, ls), fmt.Sprintf(body, secret))
	if code != 200 || !strings.Contains(resp, `"webhook_url":"https://hooks.example.com/...","webhook_secret_set":true`) || strings.Contains(resp, "whsec_") {
		t.Fatalf("put: %d %s", code, resp)
	}
	var got struct{ Data struct{ ID string } }
	_ = json.Unmarshal([]byte(resp), &got)
	if len(h.schedules.calls) != 1 || h.schedules.calls[0] != "upsert signals-"+got.Data.ID+" cron(*/10 * ? * * *) Europe/Paris" &&
		h.schedules.calls[0] != "upsert signals-"+got.Data.ID+" cron(0/10 * * * ? *) Europe/Paris" {
		t.Fatalf("schedule calls: %v", h.schedules.calls)
	}
	cfg, err := store.GetSignalsConfig(t.Context(), h.tbl, h.org.ID, pid, ls)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := h.secrets.Get(t.Context(), cfg.WebhookSecretRef); err != nil || string(v) != secret {
		t.Fatalf("stored key: %v", err)
	}
	entries, _ := store.ListSignalsScheduled(t.Context(), h.tbl)
	if len(entries) != 1 || entries[0].ConfigurationID != got.Data.ID {
		t.Fatalf("scheduled entries: %+v", entries)
	}

	// A replace without the key keeps it; a failed schedule call still answers (the table
	// is right, the reconcile repairs); disabling deletes the schedule and the entry.
	h.schedules.fail = true
	if code, resp := h.do(&h.org.User, "PUT", configPath(pid, ls), `{"model":"m","webhook_url":"https://hooks.example.com/y"}`); code != 200 ||
		!strings.Contains(resp, `"webhook_secret_set":true`) {
		t.Fatalf("replace: %d %s", code, resp)
	}
	h.schedules.fail = false
	if code, _ := h.do(&h.org.User, "PUT", configPath(pid, ls), `{"model":"m"}`); code != 200 {
		t.Fatal(code)
	}
	if last := h.schedules.calls[len(h.schedules.calls)-1]; last != "delete signals-"+got.Data.ID {
		t.Fatalf("schedule calls: %v", h.schedules.calls)
	}
	if entries, _ := store.ListSignalsScheduled(t.Context(), h.tbl); len(entries) != 0 {
		t.Fatalf("entries left: %+v", entries)
	}

	// Refusals: a URL without a key the first time, a refused host, a malformed key (never echoed).
	_, ls2, _ := h.runs(h.org)
	_ = ls2
	for _, tc := range []struct{ body, want string }{
		{`{"model":"m","webhook_url":"https://a.example.com/h"}`, `"loc":["body","webhook_secret"]`},
		{`{"model":"m","webhook_url":"http://169.254.169.254/x","webhook_secret":"` + secret + `"}`, `"loc":["body","webhook_url"]`},
		{`{"model":"m","webhook_url":"https://a.example.com/h","webhook_secret":"whsec_short-secret-value"}`, `"loc":["body","webhook_secret"]`},
	} {
		pid2, ls3, _ := h.runs(h.org)
		code, resp := h.do(&h.org.User, "PUT", configPath(pid2, ls3), tc.body)
		if code != 422 || !strings.Contains(resp, tc.want) || strings.Contains(resp, "short-secret") || strings.Contains(resp, "169.254") {
			t.Errorf("%s: %d %s", tc.body, code, resp)
		}
	}

	// DELETE removes the configuration, its schedule and its key.
	if code, _ := h.do(&h.org.ReadOnly, "DELETE", configPath(pid, ls), ""); code != 403 {
		t.Fatalf("read-only delete: %d", code)
	}
	if code, resp := h.do(&h.org.User, "DELETE", configPath(pid, ls), ""); code != 204 {
		t.Fatalf("delete: %d %s", code, resp)
	}
	if code, _ := h.do(&h.org.User, "GET", configPath(pid, ls), ""); code != 404 {
		t.Fatal("configuration left")
	}
	if code, _ := h.do(&h.org.User, "DELETE", configPath(pid, ls), ""); code != 404 {
		t.Fatal("second delete")
	}
	if _, err := h.secrets.Get(t.Context(), cfg.WebhookSecretRef); err == nil {
		t.Fatal("webhook key left")
	}
}
