package signalsworker

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/apptest"
	"github.com/evalobs/evalapi/shared/app/groups"
	"github.com/evalobs/evalapi/shared/provider/providertest"
	"github.com/evalobs/evalapi/shared/signals"
)

// TestModelAsksThroughTheUsersIntegration: a signals run's completion goes to the model's
// integration of the run's user (a custom one at the stub provider), with its key header
// and the findings' schema as structured output; a user without an integration for the
// model gets a configuration_error, which the run stores as its failure type.
func TestModelAsksThroughTheUsersIntegration(t *testing.T) {
	const key = "canary-signals-key-91c2"
	stub := providertest.New(t)
	stub.RequireHeader("X-Key", key)
	stub.Reply("analyst-1", providertest.Answer(`{"findings":[]}`))
	d := apptest.Deps(t)
	d.Config.AllowPrivateProviderEndpoints = true
	admin := apptest.Admin(t, d)
	rt := app.NewRouter(d, groups.Integrations)
	req := httptest.NewRequest("PUT", "/v2/integrations/custom", strings.NewReader(`{"endpoint":"`+stub.URL+`","models":["analyst-1"],`+
		`"authentication_type":"api_key","api_key_header":"X-Key","api_key_value":"`+key+`"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Service-API-Key", admin.APIKey.RevealString())
	rec := httptest.NewRecorder()
	rt.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("custom integration: %d %s", rec.Code, rec.Body.String())
	}

	m := Model(d)
	c := signals.Completion{OrgID: admin.OrgID, UserID: admin.UserID, ModelName: "analyst-1",
		Messages:       []signals.Message{{Role: "system", Content: "find problems"}, {Role: "user", Content: "### trace x"}},
		ResponseSchema: []byte(`{"type":"object","properties":{"findings":{"type":"array"}}}`)}
	a, err := m.Complete(t.Context(), c)
	if err != nil || a.Text != `{"findings":[]}` {
		t.Fatalf("completion: %q, %v", a.Text, err)
	}
	calls := stub.CallsFor("analyst-1")
	if len(calls) != 1 || calls[0].ResponseFormat == nil || len(calls[0].Messages) != 2 {
		t.Fatalf("the stub saw %d calls (%v)", len(calls), calls)
	}

	c.ModelName = "no-such-model"
	_, err = m.Complete(t.Context(), c)
	var typed signals.TypedError
	if !errors.As(err, &typed) || typed.ErrorType() != "configuration_error" || strings.Contains(err.Error(), key) {
		t.Fatalf("a model no integration serves: %v", err)
	}
}
