package tenancy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// world is two organizations with the same kinds of data, served by the real router (every
// group mounted, as the local host mounts them) on one journaled table.
type world struct {
	t       *testing.T
	rt      *httpapi.Router
	table   *journal
	env     *authtest.Env
	v       *apitest.V
	a, b    *tenant
	logs    *syncBuffer // every log line of the router and the handlers
	answers *syncBuffer // every response's status, headers and body, but those that issue a credential
	issuing bool        // the next answer issues a credential: not captured
}

// tenant is one organization and the ids of its records.
type tenant struct {
	authtest.Org
	name string

	UserID, GroupID, APIKeyID, IntegrationID         string
	DatasetID, RowID                                 string
	ScorerID, ProjectID, LogStreamID, ExperimentID   string
	TraceID, SpanID, SessionID                       string
	TemplateID, RunExperimentID, JobID               string
	createdPassword, createdAPIKey, integrationToken string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{t: t, logs: &syncBuffer{}, answers: &syncBuffer{}, v: apitest.Validator(t)}
	captureWorld(w.logs, w.answers)
	d := apptest.Deps(t)
	d.Log = app.JSONLogger(w.logs, slog.LevelDebug)
	w.table = newJournal(d.Table)
	d.Table = w.table
	// Identities of every role in both organizations: authtest's auth.Service on the same
	// table replaces the one apptest built, so its keys and tokens authenticate here.
	w.env = authtest.New(t, w.table, auth.Config{Logger: d.Log, Now: d.Now})
	d.Auth = w.env.Service
	var all []app.Register
	for _, g := range groups.All() {
		all = append(all, g.Register)
	}
	w.rt = app.NewRouter(d, all...)
	w.a = w.populate("a")
	w.b = w.populate("b")
	w.env.Service.Wait()
	return w
}

// do sends one request as u (bearer token: API-key use stamps a last-used time after
// answering, which would show in the snapshots), validates the answer against
// docs/openapi.yaml and records both bodies for the canary sweep.
func (w *world) do(u authtest.User, method, path, body string) (int, []byte) {
	w.t.Helper()
	return w.send(u.BearerHeader(), method, path, body)
}

func (w *world) send(h http.Header, method, path, body string) (int, []byte) {
	w.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, vs := range h {
		req.Header[k] = vs
	}
	switch {
	case strings.HasPrefix(body, "--"+formBoundary):
		req.Header.Set("Content-Type", "multipart/form-data; boundary="+formBoundary)
	case body != "":
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	w.rt.ServeHTTP(rec, req)
	w.v.CheckRecorder(w.t, req, rec)
	if !w.issuing {
		fmt.Fprintf(w.answers, "%s %s\n%d %v\n%s\n", method, path, rec.Code, rec.Header(), rec.Body.Bytes())
	}
	w.issuing = false
	return rec.Code, rec.Body.Bytes()
}

// must sends a request that has to succeed and returns the "id" of the answer (if any).
func (w *world) must(u authtest.User, method, path, body string) map[string]any {
	w.t.Helper()
	code, resp := w.send(u.Header(), method, path, body)
	if code/100 != 2 {
		w.t.Fatalf("populate: %s %s %s: %d %s", method, path, body, code, resp)
	}
	var out map[string]any
	_ = json.Unmarshal(resp, &out) // some answers are arrays; callers that need a field get an object
	return out
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return s
}

// populate creates an organization and, through the API as its admin, one record of every
// kind the service stores. Secrets in it (a password, an API key, an integration token) are
// canaries, looked for in every log line and every other answer afterwards.
func (w *world) populate(name string) *tenant {
	t := w.t
	org := w.env.Org(t)
	tn := &tenant{Org: org, name: name}
	adm := org.Admin
	tn.createdPassword = "canary-pw-" + name + "-" + strings.Repeat("q", 8) + org.ID[:8]
	tn.integrationToken = "canary-token-" + name + "-" + org.ID[:12]
	plant(tn.createdPassword, tn.integrationToken, w.env.Password)
	for _, u := range []authtest.User{org.Admin, org.Manager, org.User, org.ReadOnly} {
		plant(u.APIKey, u.AccessToken)
	}

	u := w.must(adm, "POST", "/v2/users", fmt.Sprintf(`{"email":"member-%s-%s@example.com","password":%q,"role":"user"}`, name, org.ID[:8], tn.createdPassword))
	tn.UserID = str(u, "id")
	g := w.must(adm, "POST", "/v2/groups", fmt.Sprintf(`{"name":"reviewers-%s"}`, name))
	tn.GroupID = str(g, "id")
	w.must(adm, "POST", "/v2/groups/"+tn.GroupID+"/members", fmt.Sprintf(`[{"user_id":%q}]`, tn.UserID))
	w.issuing = true // the one answer that shows the new key
	k := w.must(adm, "POST", "/v2/api_keys", `{"description":"ci"}`)
	tn.APIKeyID, tn.createdAPIKey = str(k, "id"), str(k, "api_key")
	plant(tn.createdAPIKey)
	w.login(adm)
	in := w.must(adm, "PUT", "/v2/integrations/model-vendor", fmt.Sprintf(`{"token":%q}`, tn.integrationToken))
	tn.IntegrationID = str(in, "id")
	// Shared with the read-only user too, who sees it and so meets the role check when writing.
	w.must(adm, "POST", "/v2/integrations/"+tn.IntegrationID+"/users", fmt.Sprintf(`[{"user_id":%q},{"user_id":%q}]`, org.User.UserID, org.ReadOnly.UserID))

	ds := w.must(adm, "POST", "/v2/datasets", `{"name":"qa-`+name+`","column_names":["input","output"],"rows":[["1 + 1 =","2"],["2 + 2 =","4"]]}`)
	tn.DatasetID = str(ds, "id")
	content := w.must(adm, "GET", "/v2/datasets/"+tn.DatasetID+"/content", "")
	if rows, _ := content["rows"].([]any); len(rows) > 0 {
		tn.RowID = str(rows[0].(map[string]any), "row_id")
	}
	w.must(adm, "POST", "/v2/datasets/"+tn.DatasetID+"/users", fmt.Sprintf(`[{"user_id":%q,"role":"viewer"}]`, org.User.UserID))
	w.must(adm, "POST", "/v2/datasets/"+tn.DatasetID+"/groups", fmt.Sprintf(`[{"group_id":%q,"role":"viewer"}]`, tn.GroupID))

	sc := w.must(adm, "POST", "/v2/scorers", `{"name":"politeness-`+name+`","scorer_type":"llm","output_type":"categorical","input_type":"basic","scoreable_node_types":["llm"]}`)
	tn.ScorerID = str(sc, "id")
	w.must(adm, "POST", "/v2/scorers/"+tn.ScorerID+"/version/decision", `{"question":"polite?","answer_options":["yes","no"],"model_name":"judge"}`)
	p := w.must(adm, "POST", "/v2/projects", `{"name":"project-`+name+`"}`)
	tn.ProjectID = str(p, "id")
	ls := w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/log_streams", `{"name":"production"}`)
	tn.LogStreamID = str(ls, "id")
	w.must(adm, "PATCH", w.metricSettings(tn), fmt.Sprintf(`{"scorers":[{"id":%q}]}`, tn.ScorerID))
	s := w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/sessions", fmt.Sprintf(`{"log_stream_id":%q,"name":"chat"}`, tn.LogStreamID))
	tn.SessionID = str(s, "id")
	tn.TraceID, tn.SpanID = uuid.NewString(), uuid.NewString()
	w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/traces", fmt.Sprintf(`{"log_stream_id":%q,"session_id":%q,"traces":[`+
		`{"id":%q,"created_at":"2026-01-01T00:30:10Z","name":"n","input":"i","output":"o","model":"m1","metrics":{"tone":"calm"},`+
		`"spans":[{"id":%q,"type":"llm","name":"call","input":[{"role":"user","content":"i"}]}]}]}`, tn.LogStreamID, tn.SessionID, tn.TraceID, tn.SpanID))
	e := w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/experiments", `{"name":"nightly-`+name+`"}`)
	tn.ExperimentID = str(e, "id")
	w.must(adm, "PUT", w.signals(tn), `{"model":"gpt-4o-mini","notification_severities":["HIGH"]}`)
	tp := w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/templates", `{"name":"qa","template":"Q: {{input}}"}`)
	tn.TemplateID = str(tp, "id")
	run := w.must(adm, "POST", "/v2/projects/"+tn.ProjectID+"/experiments", fmt.Sprintf(
		`{"name":"run-%s","dataset":{"dataset_id":%q,"version_index":0},"prompt_model":"m1","prompt_template":"Q: {{input}}","trigger":true}`, name, tn.DatasetID))
	tn.RunExperimentID, tn.JobID = str(run, "id"), str(run, "job_id")
	for _, id := range []string{tn.UserID, tn.GroupID, tn.APIKeyID, tn.IntegrationID, tn.DatasetID, tn.RowID, tn.ScorerID, tn.ProjectID, tn.LogStreamID, tn.ExperimentID, tn.createdAPIKey, tn.TraceID, tn.SpanID, tn.SessionID, tn.TemplateID, tn.RunExperimentID, tn.JobID} {
		if id == "" {
			t.Fatalf("populate %s: an id is missing: %+v", name, tn)
		}
	}
	return tn
}

// ids are the ids of tn's records.
func (tn *tenant) ids() []string {
	return []string{tn.ID, tn.Admin.UserID, tn.Manager.UserID, tn.User.UserID, tn.ReadOnly.UserID, tn.UserID,
		tn.GroupID, tn.APIKeyID, tn.IntegrationID, tn.DatasetID, tn.RowID, tn.ScorerID, tn.ProjectID,
		tn.LogStreamID, tn.ExperimentID, tn.TemplateID, tn.RunExperimentID, tn.JobID}
}

// namedIn reports whether s (a path) names one of tn's records.
func (tn *tenant) namedIn(s string) bool {
	return slices.ContainsFunc(tn.ids(), func(id string) bool { return strings.Contains(s, id) })
}

// unknownIDs maps each of tn's ids to a fresh one that names nothing.
func (tn *tenant) unknownIDs() map[string]string {
	m := map[string]string{}
	for _, id := range tn.ids() {
		m[id] = uuid.NewString()
	}
	return m
}

// login logs u in with the password form and plants the access token and the refresh
// cookie it issues; its answer is the one place they may appear.
func (w *world) login(u authtest.User) {
	w.t.Helper()
	form := url.Values{"username": {u.Email}, "password": {u.Password}, "grant_type": {"password"}}
	req := httptest.NewRequest("POST", "/login", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	rec := httptest.NewRecorder()
	w.rt.ServeHTTP(rec, req)
	var out struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); rec.Code != http.StatusOK || err != nil || out.AccessToken == "" {
		w.t.Fatalf("login: %d %s", rec.Code, rec.Body)
	}
	plant(out.AccessToken)
	cookies := rec.Result().Cookies()
	if len(cookies) == 0 {
		w.t.Fatal("login set no refresh cookie")
	}
	for _, c := range cookies {
		plant(c.Value)
	}
}

func (w *world) metricSettings(tn *tenant) string {
	return "/v2/projects/" + tn.ProjectID + "/log_streams/" + tn.LogStreamID + "/metric_settings"
}

func (w *world) signals(tn *tenant) string {
	return "/v2/projects/" + tn.ProjectID + "/runs/" + tn.LogStreamID + "/signals/configuration"
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of handlers' background work.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes())
}

// formBoundary starts the body of a probe that is a multipart form (multipartBody).
const formBoundary = "TENANCYBOUNDARY"

// multipartBody is a multipart form of text fields and one file, named by its field.
func multipartBody(fields map[string]string, fileField, fileName, content string) string {
	var b strings.Builder
	for k, v := range fields {
		fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q\r\n\r\n%s\r\n", formBoundary, k, v)
	}
	fmt.Fprintf(&b, "--%s\r\nContent-Disposition: form-data; name=%q; filename=%q\r\n\r\n%s\r\n--%s--\r\n",
		formBoundary, fileField, fileName, content, formBoundary)
	return b.String()
}
