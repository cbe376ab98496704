package integrations

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

// listIDs is GET /v2/integrations as who: the ids in the order answered, and each answer by id.
func (h *harness) listIDs(who *authtest.User) ([]string, map[string]integration) {
	h.t.Helper()
	code, resp := h.do(who, "GET", "/v2/integrations", "")
	var got []integration
	if code != 200 || json.Unmarshal([]byte(resp), &got) != nil {
		h.t.Fatalf("list: %d %s", code, resp)
	}
	if strings.Contains(resp, "tok-") || strings.Contains(resp, "secret_ref") || strings.Contains(resp, "settings") {
		h.t.Fatalf("the list answers a credential: %s", resp)
	}
	ids := make([]string, len(got))
	byID := map[string]integration{}
	for i, in := range got {
		ids[i], byID[in.ID] = in.ID, in
	}
	return ids, byID
}

// GET /integrations lists the integrations shared with the caller after their own, as a
// viewer's GET /integrations/{id} answers them; nobody else sees them, and a share that is
// gone is no longer listed.
func TestListSharedIntegrations(t *testing.T) {
	h := newHarness(t, options{})
	own := h.put(&h.org.User, "model-vendor", `{"token":"tok-u"}`)
	vendor := h.put(&h.org.Manager, "model-vendor", `{"token":"tok-m"}`)
	cloud := h.put(&h.org.Manager, "cloud-host", `{"token":"tok-c","endpoint":"https://example.com","available_deployments":[]}`)
	for _, in := range []integration{vendor, cloud} {
		if code, resp := h.do(&h.org.Manager, "POST", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.org.User.UserID)); code != 200 {
			t.Fatalf("share: %d %s", code, resp)
		}
	}

	h.tbl.queries.Store(0)
	h.tbl.batchGet.Store(0)
	ids, byID := h.listIDs(&h.org.User)
	// The own integrations and the shares' index side by side, then the shared records in
	// one batch: the shares carry their records' keys.
	if q, b := h.tbl.queries.Load(), h.tbl.batchGet.Load(); q != 2 || b != 1 {
		t.Errorf("the list with two shares read with %d queries and %d batch reads, want 2 and 1", q, b)
	}
	if len(ids) != 3 || ids[0] != own.ID || byID[vendor.ID].ID == "" || byID[cloud.ID].ID == "" {
		t.Fatalf("grantee's list %v, want %s then %s and %s", ids, own.ID, vendor.ID, cloud.ID)
	}
	for _, in := range []integration{vendor, cloud} {
		code, one := h.do(&h.org.User, "GET", "/v2/integrations/"+in.ID, "")
		listed, _ := json.Marshal(byID[in.ID])
		if code != 200 {
			t.Fatalf("get %s: %d %s", in.ID, code, one)
		}
		sameJSON(t, string(listed), one)
		if byID[in.ID].CreatedBy != h.org.Manager.UserID {
			t.Errorf("created_by %s, want the owner", byID[in.ID].CreatedBy)
		}
	}
	// The owner lists them once, as their own; a user they are not shared with, and another
	// organization's user, do not see them.
	if ids, _ := h.listIDs(&h.org.Manager); len(ids) != 2 {
		t.Errorf("owner's list %v, want their two", ids)
	}
	for _, who := range []*authtest.User{&h.org.ReadOnly, &h.other.User} {
		if ids, _ := h.listIDs(who); len(ids) != 0 {
			t.Errorf("%s lists %v, want none", who.Email, ids)
		}
	}

	// A share removed (as the integration's deletion would remove it) is no longer listed.
	if err := h.tbl.Delete(t.Context(), store.Key{PK: "INTEGRATION#" + cloud.ID, SK: "USER#" + h.org.User.UserID}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := h.listIDs(&h.org.User); len(ids) != 2 || ids[0] != own.ID || ids[1] != vendor.ID {
		t.Errorf("after the share is gone: %v, want %s and %s", ids, own.ID, vendor.ID)
	}
}

// A share written before the list read shares has no index entry: it is listed once the
// grantee has read the integration by id.
func TestListSharedIntegrationsWrittenBefore(t *testing.T) {
	h := newHarness(t, options{})
	in := h.put(&h.org.Manager, "model-vendor", `{"token":"tok-m"}`)
	if code, resp := h.do(&h.org.Manager, "POST", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.org.User.UserID)); code != 200 {
		t.Fatalf("share: %d %s", code, resp)
	}
	key := store.Key{PK: "INTEGRATION#" + in.ID, SK: "USER#" + h.org.User.UserID}
	if _, err := h.tbl.Update(t.Context(), store.Update{Key: key, Remove: []string{store.AttrGSI1PK, store.AttrGSI1SK, "owner_id", "provider"}}); err != nil {
		t.Fatal(err)
	}
	if ids, _ := h.listIDs(&h.org.User); len(ids) != 0 {
		t.Fatalf("a share without its entry listed: %v", ids)
	}
	for range 2 { // the repair is idempotent
		if code, resp := h.do(&h.org.User, "GET", "/v2/integrations/"+in.ID, ""); code != 200 {
			t.Fatalf("get: %d %s", code, resp)
		}
		if ids, _ := h.listIDs(&h.org.User); len(ids) != 1 || ids[0] != in.ID {
			t.Fatalf("after the grantee's read: %v, want %s", ids, in.ID)
		}
	}
}
