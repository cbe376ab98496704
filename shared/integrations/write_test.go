package integrations

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/evalobs/evalapi/shared/store"
)

const allowed = `[{"action":"update","allowed":true,"message":null},{"action":"delete","allowed":true,"message":null},
	{"action":"share","allowed":true,"message":null},{"action":"read_secrets","allowed":true,"message":null}]`

func TestPutModelVendorCreatesThenReplaces(t *testing.T) {
	h := newHarness(t, options{})
	first := h.put(&h.org.User, "model-vendor", `{"token":"tok-1","organization_id":"org-x"}`)
	h.put(&h.org.User, "model-vendor", `{"token":"tok-2"}`)
	h.clock.Store(60)
	code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", `{"token":"tok-3"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	sameJSON(t, resp, fmt.Sprintf(`{"id":%q,"name":"model-vendor","provider":"model-vendor",
		"created_at":"2026-05-06T07:08:09Z","updated_at":"2026-05-06T07:09:09Z","created_by":%q,
		"permissions":%s,"is_selected":false,"is_disabled":false}`, first.ID, h.org.User.UserID, allowed))

	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderModelVendor)
	if err != nil {
		t.Fatal(err)
	}
	if in.ID != first.ID || in.Settings["organization_id"] != nil {
		t.Fatalf("stored %+v", in)
	}
	tok, _, ok, err := ReadSecret(t.Context(), h.sec, in)
	if err != nil || !ok || tok.RevealString() != "tok-3" {
		t.Fatalf("secret: ok=%v err=%v same=%v", ok, err, tok.RevealString() == "tok-3")
	}
	if refs := h.sec.liveRefs(); len(refs) != 1 || refs[0] != SecretName(first.ID) {
		t.Fatalf("live secrets %v", refs)
	}

	// Another user of the same organization has an integration of their own.
	other := h.put(&h.org.Manager, "model-vendor", `{"token":"tok-m"}`)
	if other.ID == first.ID || other.CreatedBy != h.org.Manager.UserID {
		t.Fatalf("manager's integration %+v", other)
	}
	// The two providers are two integrations of one user.
	cloud := h.put(&h.org.User, "cloud-host", `{"token":"t","endpoint":"https://example.com","available_deployments":[]}`)
	if cloud.ID == first.ID || cloud.Provider != "cloud-host" || cloud.Name != "cloud-host" {
		t.Fatalf("cloud-host integration %+v", cloud)
	}
}

func TestPutCloudHostStoresSettingsNotSecrets(t *testing.T) {
	h := newHarness(t, options{})
	body := `{"token":"tok-c","endpoint":"https://example-endpoint.openai.azure.com","proxy":true,"api_version":"2024-10-21",
		"azure_deployment":"dep","authentication_type":"custom_oauth2","authentication_scope":"scope",
		"oauth2_token_url":"https://login.example.com/token","default_headers":{"X-Secret":"hdr-value"},
		"custom_header_mapping":{"user_id":"X-User"},"available_deployments":[{"model":"gpt-4o-mini","id":"id1"}],
		"multi_modal_config":{"max_files":3,"max_file_size_bytes":null},"deployments":{"gpt-4o":"dep-4o"}}`
	got := h.put(&h.org.Admin, "cloud-host", body)
	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.Admin.UserID, ProviderCloudHost)
	if err != nil {
		t.Fatal(err)
	}
	item, err := h.tbl.Get(t.Context(), store.Key{PK: "USER#" + h.org.Admin.UserID, SK: "INTEGRATION#cloud-host"}, true)
	if err != nil {
		t.Fatal(err)
	}
	raw := fmt.Sprint(item)
	for _, secret := range []string{"tok-c", "hdr-value", "X-Secret"} {
		if strings.Contains(raw, secret) {
			t.Fatalf("the record holds %q: %s", secret, raw)
		}
	}
	if item[store.AttrGSI1PK] != "INTEGRATION#"+got.ID {
		t.Fatalf("GSI1PK %v", item[store.AttrGSI1PK])
	}
	want := map[string]any{"endpoint": "https://example-endpoint.openai.azure.com", "proxy": true, "api_version": "2024-10-21",
		"azure_deployment": "dep", "authentication_type": "custom_oauth2", "authentication_scope": "scope",
		"oauth2_token_url": "https://login.example.com/token"}
	for k, v := range want {
		if in.Settings[k] != v {
			t.Errorf("setting %s = %v, want %v", k, in.Settings[k], v)
		}
	}
	if fmt.Sprint(in.Settings["available_deployments"]) != "[map[id:id1 model:gpt-4o-mini]]" ||
		fmt.Sprint(in.Settings["multi_modal_config"]) != "map[max_file_size_bytes:<nil> max_files:3]" ||
		fmt.Sprint(in.Settings["custom_header_mapping"]) != "map[user_id:X-User]" ||
		fmt.Sprint(in.Settings["deployments"]) != "map[gpt-4o:dep-4o]" {
		t.Errorf("settings %v", in.Settings)
	}
	tok, headers, ok, err := ReadSecret(t.Context(), h.sec, in)
	if err != nil || !ok || tok.RevealString() != "tok-c" || len(headers) != 1 || headers["X-Secret"].RevealString() != "hdr-value" {
		t.Fatalf("secret read back: ok=%v err=%v", ok, err)
	}
	mem := h.sec.Store.(interface {
		Tags(string) (map[string]string, bool)
	})
	tags, _ := mem.Tags(in.SecretRef)
	if tags["organization"] != h.org.ID || tags["owner"] != h.org.Admin.UserID {
		t.Fatalf("tags %v", tags)
	}
}

func TestPutValidation(t *testing.T) {
	h := newHarness(t, options{})
	for _, tc := range []struct {
		name, provider, body string
		want                 string
	}{
		{"model-vendor empty", "model-vendor", `{}`,
			`{"detail":[{"type":"missing","loc":["body","token"],"msg":"Field required","input":{}}]}`},
		{"model-vendor types", "model-vendor", `{"token":5,"organization_id":7}`,
			`{"detail":[{"type":"string_type","loc":["body","token"],"msg":"Input should be a valid string","input":"[redacted]"},
			{"type":"string_type","loc":["body","organization_id"],"msg":"Input should be a valid string","input":7}]}`},
		{"model-vendor empty token", "model-vendor", `{"token":""}`,
			`{"detail":[{"type":"string_too_short","loc":["body","token"],"msg":"String should have at least 1 character","input":"[redacted]","ctx":{"min_length":1}}]}`},
		{"cloud-host missing", "cloud-host", `{"proxy":"maybe"}`,
			`{"detail":[{"type":"missing","loc":["body","token"],"msg":"Field required","input":{"proxy":"maybe"}},
			{"type":"missing","loc":["body","endpoint"],"msg":"Field required","input":{"proxy":"maybe"}},
			{"type":"bool_parsing","loc":["body","proxy"],"msg":"Input should be a valid boolean, unable to interpret input","input":"maybe"}]}`},
		{"cloud-host http endpoint", "cloud-host", `{"token":"s3cret","endpoint":"http://example.com","available_deployments":[]}`,
			`{"detail":[{"type":"value_error","loc":["body","endpoint"],"msg":"Value error, endpoint must be an https URL with a host and no credentials, query or fragment","input":"http://example.com","ctx":{"error":{}}}]}`},
		{"cloud-host metadata endpoint", "cloud-host", `{"token":"s3cret","endpoint":"https://169.254.169.254/latest/meta-data/","available_deployments":[]}`,
			`{"detail":[{"type":"value_error","loc":["body","endpoint"],"msg":"Value error, endpoint refused: its address is private, loopback, link-local or otherwise reserved","input":"https://169.254.169.254/latest/meta-data/","ctx":{"error":{}}}]}`},
		{"cloud-host credentials in endpoint", "cloud-host", `{"token":"s3cret","endpoint":"https://u:pw@example.com"}`,
			`{"detail":[{"type":"value_error","loc":["body","endpoint"],"msg":"Value error, endpoint must be an https URL with a host and no credentials, query or fragment","input":"[redacted]","ctx":{"error":{}}}]}`},
		{"cloud-host fields", "cloud-host", `{"token":"s3cret","endpoint":"https://example.com","authentication_type":"magic",
			"default_headers":{"X":1},"available_deployments":[{"model":"m"}],"multi_modal_config":{"max_files":0}}`,
			`{"detail":[{"type":"enum","loc":["body","authentication_type"],"msg":"Input should be 'api_key', 'client_secret', 'username_password' or 'custom_oauth2'","input":"magic","ctx":{"expected":"'api_key', 'client_secret', 'username_password' or 'custom_oauth2'"}},
			{"type":"string_type","loc":["body","default_headers","X"],"msg":"Input should be a valid string","input":"[redacted]"},
			{"type":"missing","loc":["body","available_deployments",0,"id"],"msg":"Field required","input":{"model":"m"}},
			{"type":"greater_than_equal","loc":["body","multi_modal_config","max_files"],"msg":"Input should be greater than or equal to 1","input":0,"ctx":{"ge":1}}]}`},
		{"custom_oauth2 without token url", "cloud-host", `{"token":"s3cret","endpoint":"https://example.com","authentication_type":"custom_oauth2","available_deployments":[]}`,
			`{"detail":[{"type":"missing","loc":["body","oauth2_token_url"],"msg":"Field required","input":{"token":"[redacted]","endpoint":"https://example.com","authentication_type":"custom_oauth2","available_deployments":[]}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/"+tc.provider, tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s", code, resp)
			}
			sameJSON(t, resp, tc.want)
		})
	}
	if refs := h.sec.liveRefs(); len(refs) != 0 {
		t.Fatalf("secrets written by refused requests: %v", refs)
	}
	for _, tc := range []struct {
		name string
		who  any
		code int
	}{
		{"unauthenticated", nil, 401},
		{"read-only", &h.org.ReadOnly, 403},
	} {
		t.Run(tc.name, func(t *testing.T) {
			who := &h.org.ReadOnly
			if tc.who == nil {
				who = nil
			}
			code, resp := h.do(who, "PUT", "/v2/integrations/model-vendor", `{"token":"x"}`)
			if code != tc.code {
				t.Fatalf("%d %s, want %d", code, resp, tc.code)
			}
		})
	}
}

func TestConcurrentPutsLeaveOneIntegrationAndOneSecret(t *testing.T) {
	h := newHarness(t, options{})
	const n = 20
	ids := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", fmt.Sprintf(`{"token":"tok-%d"}`, i))
			if code != 200 {
				t.Errorf("put %d: %d %s", i, code, resp)
				return
			}
			ids[i] = resp[strings.Index(resp, `"id":"`)+6:][:36]
		}()
	}
	wg.Wait()
	for i := range ids {
		if ids[i] != ids[0] {
			t.Fatalf("ids differ: %v", ids)
		}
	}
	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderModelVendor)
	if err != nil || in.ID != ids[0] {
		t.Fatalf("stored %+v, %v", in, err)
	}
	if refs := h.sec.liveRefs(); len(refs) != 1 || refs[0] != in.SecretRef {
		t.Fatalf("live secrets %v, want only %s", refs, in.SecretRef)
	}
	if _, _, ok, err := ReadSecret(t.Context(), h.sec, in); err != nil || !ok {
		t.Fatalf("the secret is not the record's revision: ok=%v err=%v", ok, err)
	}
}

func TestFailuresStoreNothing(t *testing.T) {
	h := newHarness(t, options{})
	h.sec.failPut.Store(true)
	code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", `{"token":"tok-f"}`)
	if code != http.StatusServiceUnavailable || strings.Contains(resp, "injected") {
		t.Fatalf("secret store down: %d %s", code, resp)
	}
	if _, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderModelVendor); err == nil {
		t.Fatal("an integration was stored without its secret")
	}
	h.sec.failPut.Store(false)

	h.tbl.failWrites.Store(true)
	code, resp = h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", `{"token":"tok-f"}`)
	if code != http.StatusInternalServerError || strings.Contains(resp, "injected") {
		t.Fatalf("table down: %d %s", code, resp)
	}
	if refs := h.sec.liveRefs(); len(refs) != 0 {
		t.Fatalf("orphan secrets %v", refs)
	}
	h.tbl.failWrites.Store(false)

	// A replace whose record write fails puts the replaced credentials back: the
	// integration keeps working with the old token.
	h.put(&h.org.User, "model-vendor", `{"token":"tok-1"}`)
	h.tbl.failWrites.Store(true)
	if code, _ := h.do(&h.org.User, "PUT", "/v2/integrations/model-vendor", `{"token":"tok-2"}`); code != 500 {
		t.Fatalf("replace with the table down: %d", code)
	}
	in, _ := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderModelVendor)
	if tok, _, ok, err := ReadSecret(t.Context(), h.sec, in); err != nil || !ok || tok.RevealString() != "tok-1" {
		t.Fatalf("after a failed replace: ok=%v err=%v, want the old token back", ok, err)
	}
	h.tbl.failWrites.Store(false)
	h.put(&h.org.User, "model-vendor", `{"token":"tok-3"}`)
	in, _ = store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.User.UserID, ProviderModelVendor)
	if tok, _, ok, err := ReadSecret(t.Context(), h.sec, in); err != nil || !ok || tok.RevealString() != "tok-3" {
		t.Fatalf("not repaired: ok=%v err=%v", ok, err)
	}
	if refs := h.sec.liveRefs(); len(refs) != 1 {
		t.Fatalf("live secrets %v", refs)
	}
}

// A URL refused because it may carry a credential (a user part, a query) is never echoed,
// at the endpoint or the OAuth2 token URL, nor is a body sent as text.
func TestRefusedURLsAreNotEchoed(t *testing.T) {
	h := newHarness(t, options{})
	for _, body := range []string{
		`{"token":"t","endpoint":"https://x.example/?api-key=SECRET-1","available_deployments":[]}`,
		`{"token":"t","endpoint":"https://x.example","available_deployments":[],"authentication_type":"custom_oauth2","oauth2_token_url":"https://client:SECRET-2@idp.example/token"}`,
		`{"token":"t","endpoint":"https://x.example","available_deployments":[],"authentication_type":"custom_oauth2","oauth2_token_url":"https://idp.example/token?client_secret=SECRET-3"}`,
	} {
		code, resp := h.do(&h.org.User, "PUT", "/v2/integrations/cloud-host", body)
		if code != 422 || strings.Contains(resp, "SECRET") || !strings.Contains(resp, `"input":"[redacted]"`) {
			t.Errorf("%s: %d %s", body, code, resp)
		}
	}
}

// The original's clients may send deployments (model name to deployment id) instead of
// available_deployments: kept, and taken as the list, so nothing is fetched.
func TestPutCloudHostDeployments(t *testing.T) {
	h := newHarness(t, options{})
	h.put(&h.org.Admin, "cloud-host", `{"token":"t","endpoint":"https://example.com","deployments":{"gpt-4o":"d2","gpt-4o-mini":"d1"}}`)
	in, err := store.OwnIntegration(t.Context(), h.tbl, h.org.ID, h.org.Admin.UserID, ProviderCloudHost)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(in.Settings["available_deployments"]) != "[map[id:d2 model:gpt-4o] map[id:d1 model:gpt-4o-mini]]" ||
		fmt.Sprint(in.Settings["deployments"]) != "map[gpt-4o:d2 gpt-4o-mini:d1]" {
		t.Errorf("settings %v", in.Settings)
	}
	code, body := h.do(&h.org.Admin, "PUT", "/v2/integrations/cloud-host", `{"token":"t","endpoint":"https://example.com","available_deployments":[],"deployments":{"m":1}}`)
	if code != 422 || !strings.Contains(body, `"loc":["body","deployments","m"]`) {
		t.Errorf("a deployment id that is no string: %d %s", code, body)
	}
}

// GET /integrations (the original client's list): the caller's own integrations in
// provider order, as GET /integrations/{id} answers each, and nobody else's.
func TestListIntegrations(t *testing.T) {
	h := newHarness(t, options{})
	if code, resp := h.do(&h.org.User, "GET", "/v2/integrations", ""); code != 200 || resp != "[]" {
		t.Fatalf("no integration yet: %d %s", code, resp)
	}
	vendor := h.put(&h.org.User, "model-vendor", `{"token":"tok-1"}`)
	cloud := h.put(&h.org.User, "cloud-host", `{"token":"t","endpoint":"https://example.com","available_deployments":[]}`)
	h.put(&h.org.Manager, "model-vendor", `{"token":"tok-m"}`)
	h.put(&h.other.User, "model-vendor", `{"token":"tok-o"}`)
	for _, path := range []string{"/v2/integrations", "/integrations"} {
		code, resp := h.do(&h.org.User, "GET", path, "")
		var got []integration
		if code != 200 || json.Unmarshal([]byte(resp), &got) != nil {
			t.Fatalf("%s: %d %s", path, code, resp)
		}
		if len(got) != 2 || got[0].ID != cloud.ID || got[1].ID != vendor.ID || got[0].CreatedBy != h.org.User.UserID {
			t.Errorf("%s: %s, want the user's cloud-host then model-vendor", path, resp)
		}
		if strings.Contains(resp, "tok-") || strings.Contains(resp, "secret_ref") || strings.Contains(resp, "settings") {
			t.Errorf("%s answers a credential: %s", path, resp)
		}
	}
	if code, _ := h.do(nil, "GET", "/v2/integrations", ""); code != 401 {
		t.Errorf("without credentials: %d, want 401", code)
	}
	if code, resp := h.do(&h.org.ReadOnly, "GET", "/v2/integrations", ""); code != 200 || resp != "[]" {
		t.Errorf("a read-only user with none: %d %s", code, resp)
	}
}
