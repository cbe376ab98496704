package integrations

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

const viewerPermissions = `[{"action":"update","allowed":false,"message":"Only the integration's owner can update it"},
	{"action":"delete","allowed":false,"message":"Only the integration's owner can delete it"},
	{"action":"share","allowed":false,"message":"Only the integration's owner can share it"},
	{"action":"read_secrets","allowed":false,"message":"Only the integration's owner can read its secrets"}]`

func usersPath(id string) string { return "/v2/integrations/" + id + "/users" }

func TestShareWithUsers(t *testing.T) {
	h := newHarness(t, options{})
	in := h.put(&h.org.User, "model-vendor", `{"token":"tok"}`)
	body := fmt.Sprintf(`[{"user_id":%q},{"user_email":%q,"role":"viewer"},{"user_email":"New.Person@Example.com"}]`,
		h.org.Manager.UserID, strings.ToUpper(h.org.ReadOnly.Email))
	code, resp := h.do(&h.org.User, "POST", usersPath(in.ID), body)
	if code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	var got []collaborator
	if err := json.Unmarshal([]byte(resp), &got); err != nil || len(got) != 3 {
		t.Fatalf("%v %s", err, resp)
	}
	invited, err := store.OrgUserByEmail(t.Context(), h.tbl, h.org.ID, "new.person@example.com")
	if err != nil || invited.State != store.UserInvited {
		t.Fatalf("invited user %+v, %v", invited, err)
	}
	sameJSON(t, resp, fmt.Sprintf(`[
		{"id":%q,"role":"viewer","created_at":"2026-05-06T07:08:09Z","user_id":%q,"first_name":"Test","last_name":"manager","email":%q,"permissions":%s},
		{"id":%q,"role":"viewer","created_at":"2026-05-06T07:08:09Z","user_id":%q,"first_name":"Test","last_name":"read_only","email":%q,"permissions":%s},
		{"id":%q,"role":"viewer","created_at":"2026-05-06T07:08:09Z","user_id":%q,"first_name":null,"last_name":null,"email":"new.person@example.com","permissions":%s}]`,
		got[0].ID, h.org.Manager.UserID, h.org.Manager.Email, viewerPermissions,
		got[1].ID, h.org.ReadOnly.UserID, h.org.ReadOnly.Email, viewerPermissions,
		got[2].ID, invited.ID, viewerPermissions))

	// A viewer sees the integration but may not share it; a stranger does not see it.
	stranger := h.other.User
	for _, tc := range []struct {
		name   string
		status int
		detail string
		code   func() (int, string)
	}{
		{"viewer", 403, "Only the integration's owner or an organization admin can share it",
			func() (int, string) { return h.do(&h.org.Manager, "POST", usersPath(in.ID), `[]`) }},
		{"not shared", 404, "Integration not found",
			func() (int, string) { return h.do(&h.org.Admin, "POST", usersPath(uuid.NewString()), `[]`) }},
		{"other organization", 404, "Integration not found",
			func() (int, string) { return h.do(&stranger, "POST", usersPath(in.ID), `[]`) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := tc.code()
			if code != tc.status {
				t.Fatalf("%d %s, want %d", code, resp, tc.status)
			}
			sameJSON(t, resp, fmt.Sprintf(`{"detail":%q}`, tc.detail))
		})
	}
	// A user of the organization it is not shared with does not see it either.
	other := h.put(&h.org.Admin, "model-vendor", `{"token":"tok-a"}`)
	if code, resp := h.do(&h.org.User, "POST", usersPath(other.ID), `[]`); code != 404 {
		t.Fatalf("unshared: %d %s", code, resp)
	}
	// Asking for another role is a rule of the operation: checked after the integration is
	// found, so an unknown integration is a 404 whatever the roles asked for.
	if code, resp := h.do(&h.org.User, "POST", usersPath(uuid.NewString()), `[{"role":"editor","user_email":"q@example.com"}]`); code != 404 {
		t.Fatalf("unknown integration, editor role: %d %s", code, resp)
	}
	// An organization admin shares another user's integration.
	code, resp = h.do(&h.org.Admin, "POST", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.org.Admin.UserID))
	if code != 200 {
		t.Fatalf("admin shares: %d %s", code, resp)
	}
}

func TestShareRefusals(t *testing.T) {
	h := newHarness(t, options{})
	in := h.put(&h.org.User, "model-vendor", `{"token":"tok"}`)
	if code, resp := h.do(&h.org.User, "POST", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.org.Manager.UserID)); code != 200 {
		t.Fatalf("%d %s", code, resp)
	}
	unknown := uuid.NewString()
	fresh := h.org.ReadOnly.UserID // not shared yet: must stay unshared after every refusal
	for _, tc := range []struct {
		name, path, body, want string
	}{
		{"role", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q},{"user_id":%q,"role":"editor"}]`, fresh, h.org.Admin.UserID),
			`{"detail":[{"type":"value_error","loc":["body",1,"role"],"msg":"Value error, an integration can be shared with the viewer role only","input":"editor","ctx":{"error":{}}}]}`},
		{"unknown role", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q,"role":"boss"}]`, fresh),
			`{"detail":[{"type":"enum","loc":["body",0,"role"],"msg":"Input should be 'owner', 'editor', 'annotator' or 'viewer'","input":"boss","ctx":{"expected":"'owner', 'editor', 'annotator' or 'viewer'"}}]}`},
		{"already shared", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q},{"user_id":%q}]`, fresh, h.org.Manager.UserID),
			fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body",1,"user_id"],"msg":"Value error, The user already has access to this integration","input":%q,"ctx":{"error":{}}}]}`, h.org.Manager.UserID)},
		{"owner", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q},{"user_email":%q}]`, fresh, h.org.User.Email),
			fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body",1,"user_email"],"msg":"Value error, The user already has access to this integration","input":%q,"ctx":{"error":{}}}]}`, h.org.User.Email)},
		{"twice", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q},{"user_email":%q}]`, fresh, strings.ToUpper(h.org.ReadOnly.Email)),
			fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body",1,"user_email"],"msg":"Value error, the user appears twice in this request","input":%q,"ctx":{"error":{}}}]}`, strings.ToUpper(h.org.ReadOnly.Email))},
		{"unknown id", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q},{"user_id":%q}]`, fresh, unknown),
			fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body",1,"user_id"],"msg":"Value error, no user with this id in the organization","input":%q,"ctx":{"error":{}}}]}`, unknown)},
		{"other organization's user", usersPath(in.ID), fmt.Sprintf(`[{"user_id":%q}]`, h.other.User.UserID),
			fmt.Sprintf(`{"detail":[{"type":"value_error","loc":["body",0,"user_id"],"msg":"Value error, no user with this id in the organization","input":%q,"ctx":{"error":{}}}]}`, h.other.User.UserID)},
		{"neither", usersPath(in.ID), `[{"role":"viewer"}]`,
			`{"detail":[{"type":"value_error","loc":["body",0],"msg":"Value error, either user_id or user_email is required","input":{"role":"viewer"},"ctx":{"error":{}}}]}`},
		{"bad email and id", usersPath(in.ID), `[{"user_email":"nobody","user_id":"x"}]`,
			`{"detail":[{"type":"uuid_parsing","loc":["body",0,"user_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`x`" + ` at 1","input":"x","ctx":{"error":"invalid character: found ` + "`x`" + ` at 1"}},
			{"type":"value_error","loc":["body",0,"user_email"],"msg":"value is not a valid email address: An email address must have an @-sign.","input":"nobody","ctx":{"reason":"An email address must have an @-sign."}}]}`},
		{"path and body", usersPath("nope"), `{}`,
			`{"detail":[{"type":"uuid_parsing","loc":["path","integration_id"],"msg":"Input should be a valid UUID, invalid character: found ` + "`n`" + ` at 1","input":"nope","ctx":{"error":"invalid character: found ` + "`n`" + ` at 1"}},
			{"type":"list_type","loc":["body"],"msg":"Input should be a valid list","input":{}}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, resp := h.do(&h.org.User, "POST", tc.path, tc.body)
			if code != http.StatusUnprocessableEntity {
				t.Fatalf("%d %s", code, resp)
			}
			sameJSON(t, resp, tc.want)
			if _, err := store.IntegrationCollaboratorOf(t.Context(), h.tbl, h.org.ID, in.ID, fresh); err == nil {
				t.Fatal("a refused request stored a share")
			}
		})
	}
	over := "[" + strings.Repeat(fmt.Sprintf(`{"user_id":%q},`, fresh), 100) + fmt.Sprintf(`{"user_id":%q}]`, fresh)
	if code, resp := h.do(&h.org.User, "POST", usersPath(in.ID), over); code != 422 || !strings.Contains(resp, `"too_long"`) {
		t.Fatalf("101 items: %d %.200s", code, resp)
	}
}

// A full request of 100 users is one transaction of 100 actions; invitations count three
// actions each, and a request whose actions do not fit is a 422 that stores nothing.
func TestShareLimits(t *testing.T) {
	h := newHarness(t, options{})
	in := h.put(&h.org.User, "model-vendor", `{"token":"tok"}`)
	var items []string
	for i := range 100 {
		u := store.User{ID: uuid.NewString(), OrgID: h.org.ID, Email: fmt.Sprintf("bulk-%d@example.com", i),
			Role: "user", State: store.UserActive, CreatedAt: testNow, UpdatedAt: testNow}
		if err := store.CreateUser(t.Context(), h.tbl, u, ""); err != nil {
			t.Fatal(err)
		}
		items = append(items, fmt.Sprintf(`{"user_id":%q}`, u.ID))
	}
	code, resp := h.do(&h.org.User, "POST", usersPath(in.ID), "["+strings.Join(items, ",")+"]")
	var got []collaborator
	if err := json.Unmarshal([]byte(resp), &got); code != 200 || err != nil || len(got) != 100 {
		t.Fatalf("100 users: %d %.300s", code, resp)
	}

	other := h.put(&h.org.Admin, "model-vendor", `{"token":"tok"}`)
	items = items[:40]
	for i := range 30 {
		items = append(items, fmt.Sprintf(`{"user_email":"invitee-%d@example.com"}`, i))
	}
	code, resp = h.do(&h.org.Admin, "POST", usersPath(other.ID), "["+strings.Join(items, ",")+"]")
	if code != 422 || !strings.Contains(resp, "too many changes for one request") {
		t.Fatalf("40 users and 30 invitations: %d %.300s", code, resp)
	}
	if _, err := store.OrgUserByEmail(t.Context(), h.tbl, h.org.ID, "invitee-0@example.com"); err == nil {
		t.Fatal("a refused request invited a user")
	}
}
