package integrations

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

const customCanary = "custom-canary-5d1e9b7a"

func TestPutCustomStoresSettingsAndSecrets(t *testing.T) {
	h := newHarness(t, options{})
	body := `{"endpoint":"https://models.example.com/v1","authentication_type":"api_key","api_key_header":"X-Api-Key",
		"api_key_value":"` + customCanary + `-key","headers":{"X-Tenant":"` + customCanary + `-hdr"},"models":["llama-8b","qwen-7b"],
		"default_model":"llama-8b","model_properties":[{"name":"llama-8b","alias":"small"}],"custom_header_mapping":{"user_id":"X-User"},
		"model_prices":{"llama-8b":{"input_per_million":0.1,"output_per_million":0.25}}}`
	h.clock.Store(0)
	got := h.put(&h.org.User, "custom", body)
	code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/custom", body)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	sameJSON(t, resp, fmt.Sprintf(`{"id":%q,"name":"custom","provider":"custom",
		"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:08:09Z","created_by":%q,
		"permissions":%s,"is_selected":false,"is_disabled":false,
		"model_prices":{"llama-8b":{"input_per_million":0.1,"output_per_million":0.25}}}`, got.ID, h.org.User.UserID, allowed))

	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderCustom)
	if err != nil {
		t.Fatal(err)
	}
	item, err := h.tbl.Get(t.Context(), store.Key{PK: "USER#" + h.org.User.UserID, SK: "INTEGRATION#custom"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if raw := fmt.Sprint(item); strings.Contains(raw, customCanary) || strings.Contains(raw, "X-Tenant") {
		t.Fatalf("the record holds a credential: %s", raw)
	}
	for k, want := range map[string]string{"endpoint": "https://models.example.com/v1", "authentication_type": "api_key",
		"api_key_header": "X-Api-Key", "default_model": "llama-8b", "models": "[llama-8b qwen-7b]",
		"custom_header_mapping": "map[user_id:X-User]", "model_properties": "[map[alias:small based_on:<nil> name:llama-8b supported_parameters:<nil>]]",
		"model_prices": "map[llama-8b:map[input_per_million:0.1 output_per_million:0.25]]"} {
		if got := fmt.Sprint(in.Settings[k]); got != want {
			t.Errorf("setting %s = %s, want %s", k, got, want)
		}
	}
	cr, ok, err := ReadCredentials(t.Context(), h.sec, in)
	if err != nil || !ok || cr.APIKeyValue.RevealString() != customCanary+"-key" || cr.Headers["X-Tenant"].RevealString() != customCanary+"-hdr" {
		t.Fatalf("credentials read back: ok=%v err=%v", ok, err)
	}
	if strings.Contains(h.logs.String(), customCanary) {
		t.Fatal("a credential reached the log")
	}
}

func TestPutCustomOAuth2AndNone(t *testing.T) {
	h := newHarness(t, options{allowPrivate: true})
	h.put(&h.org.User, "custom", `{"endpoint":"https://models.example.com","token":"client-1:`+customCanary+`",
		"oauth2_token_url":"https://idp.example.com/token","authentication_scope":"models"}`)
	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderCustom)
	if err != nil || in.Settings["authentication_type"] != "oauth2" || in.Settings["authentication_scope"] != "models" {
		t.Fatalf("stored %+v %v", in.Settings, err)
	}
	if cr, ok, _ := ReadCredentials(t.Context(), h.sec, in); !ok || cr.Token.RevealString() != "client-1:"+customCanary {
		t.Fatal("client credentials not in the secret")
	}
	// Loopback is accepted where private endpoints are allowed (the local host, tests).
	h.put(&h.org.User, "custom", `{"endpoint":"http://127.0.0.1:8001/v1","authentication_type":"none","models":["m"]}`)
	in, _ = store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderCustom)
	if in.Settings["endpoint"] != "http://127.0.0.1:8001/v1" || in.Settings["oauth2_token_url"] != nil {
		t.Fatalf("settings %v", in.Settings)
	}
}

func TestPutCustomValidation(t *testing.T) {
	h := newHarness(t, options{})
	for _, tc := range []struct {
		name, body string
		want       []string // fragments of the 422
	}{
		{"endpoint missing", `{"authentication_type":"none","headers":{"X":"` + customCanary + `"}}`,
			[]string{`"loc":["body","endpoint"]`, `"type":"missing"`}},
		{"oauth2 by default needs token and token url", `{"endpoint":"https://m.example.com"}`,
			[]string{`"loc":["body","oauth2_token_url"]`, `"loc":["body","token"]`}},
		{"oauth2 token not client credentials", `{"endpoint":"https://m.example.com","oauth2_token_url":"https://idp.example.com/t","token":"` + customCanary + `"}`,
			[]string{`"loc":["body","token"]`, "client_id:client_secret"}},
		{"api_key needs header and value", `{"endpoint":"https://m.example.com","authentication_type":"api_key"}`,
			[]string{`"loc":["body","api_key_header"]`, `"loc":["body","api_key_value"]`}},
		{"api_key header name invalid", `{"endpoint":"https://m.example.com","authentication_type":"api_key","api_key_header":"X Key:","api_key_value":"` + customCanary + `"}`,
			[]string{`"loc":["body","api_key_header"]`, "valid HTTP header name"}},
		{"metadata endpoint", `{"endpoint":"https://169.254.169.254/v1","authentication_type":"none"}`,
			[]string{`"loc":["body","endpoint"]`, "endpoint refused"}},
		{"loopback endpoint outside tests", `{"endpoint":"https://127.0.0.1/v1","authentication_type":"none"}`,
			[]string{`"loc":["body","endpoint"]`, "endpoint refused"}},
		{"private token url", `{"endpoint":"https://m.example.com","oauth2_token_url":"https://10.0.0.1/t","token":"a:b"}`,
			[]string{`"loc":["body","oauth2_token_url"]`}},
		{"header value not a string", `{"endpoint":"https://m.example.com","authentication_type":"none","headers":{"X":5}}`,
			[]string{`"loc":["body","headers","X"]`, `"input":"[redacted]"`}},
		{"bad enum and types", `{"endpoint":"https://m.example.com","authentication_type":"magic","models":[""],"is_legacy_format":"x"}`,
			[]string{`"loc":["body","authentication_type"]`, `"loc":["body","models",0]`, `"loc":["body","is_legacy_format"]`}},
		{"bad prices", `{"endpoint":"https://m.example.com","authentication_type":"none","model_prices":{"m":{"input_per_million":-1},"n":3}}`,
			[]string{`"loc":["body","model_prices","m","input_per_million"]`, `"loc":["body","model_prices","m","output_per_million"]`, `"loc":["body","model_prices","n"]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/custom", tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s", code, resp)
			}
			for _, f := range tc.want {
				if !strings.Contains(resp, f) {
					t.Errorf("no %s in %s", f, resp)
				}
			}
			if strings.Contains(resp, customCanary) {
				t.Fatalf("the 422 echoes a credential: %s", resp)
			}
		})
	}
	if refs := h.sec.liveRefs(); len(refs) != 0 {
		t.Fatalf("secrets written by refused requests: %v", refs)
	}
	if code, _ := h.do(&h.org.ReadOnly, "PUT", "/v2/integrations/custom", `{"endpoint":"https://m.example.com","authentication_type":"none"}`); code != 403 {
		t.Fatalf("read-only: %d", code)
	}
}

// model_prices are taken by every provider's body.
func TestModelPricesOnEveryProvider(t *testing.T) {
	h := newHarness(t, options{})
	prices := `"model_prices":{"gpt-x":{"input_per_million":2.5,"output_per_million":10}}`
	for _, p := range []struct{ provider, body string }{
		{"model-vendor", `{"token":"t",` + prices + `}`},
		{"cloud-host", `{"token":"t","endpoint":"https://example.com","available_deployments":[],` + prices + `}`},
	} {
		got := h.put(&h.org.User, p.provider, p.body)
		in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, p.provider)
		if err != nil || fmt.Sprint(in.Settings["model_prices"]) != "map[gpt-x:map[input_per_million:2.5 output_per_million:10]]" ||
			fmt.Sprint(got.ModelPrices) != "map[gpt-x:map[input_per_million:2.5 output_per_million:10]]" {
			t.Errorf("%s: stored %v, answered %v (%v)", p.provider, in.Settings["model_prices"], got.ModelPrices, err)
		}
	}
	// A replace without prices drops them, as every other setting.
	got := h.put(&h.org.User, "model-vendor", `{"token":"t"}`)
	if got.ModelPrices != nil {
		t.Fatalf("prices kept: %v", got.ModelPrices)
	}
}

// GET /v2/integrations/{id} shows the integration, prices included, to those who may use it.
func TestGetIntegration(t *testing.T) {
	h := newHarness(t, options{})
	in := h.put(&h.org.User, "model-vendor", `{"token":"`+customCanary+`","model_prices":{"m":{"input_per_million":1,"output_per_million":2}}}`)
	for _, tc := range []struct {
		name  string
		who   any
		code  int
		allow bool
	}{
		{"owner", &h.org.User, 200, true},
		{"organization admin", &h.org.Admin, 200, true},
		{"another user", &h.org.Manager, 404, false},
		{"another organization's admin", &h.other.Admin, 404, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(tc.who.(*authtest.User), "GET", "/v2/integrations/"+in.ID, "")
			if code != tc.code || strings.Contains(resp, customCanary) {
				t.Fatalf("%d %s", code, resp)
			}
			if code == 200 && (!strings.Contains(resp, `"model_prices":{"m":{"input_per_million":1,"output_per_million":2}}`) || !strings.Contains(resp, in.ID)) {
				t.Fatalf("body %s", resp)
			}
		})
	}
	// Shared with the manager as a viewer: visible, with the viewer's permissions.
	if code, resp := h.do(&h.org.User, "POST", "/v2/integrations/"+in.ID+"/users", `[{"role":"viewer","user_id":"`+h.org.Manager.UserID+`"}]`); code != 200 {
		t.Fatalf("share: %d %s", code, resp)
	}
	code, resp := h.do(&h.org.Manager, "GET", "/v2/integrations/"+in.ID, "")
	if code != 200 || !strings.Contains(resp, `{"action":"read_secrets","allowed":false`) {
		t.Fatalf("viewer: %d %s", code, resp)
	}
	if code, resp := h.do(&h.org.User, "GET", "/v2/integrations/not-a-uuid", ""); code != 422 || !strings.Contains(resp, `"loc":["path","integration_id"]`) {
		t.Fatalf("bad id: %d %s", code, resp)
	}
	if code, _ := h.do(nil, "GET", "/v2/integrations/"+in.ID, ""); code != 401 {
		t.Fatalf("unauthenticated: %d", code)
	}
}
