package identity_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/store"
)

func TestGroups(t *testing.T) {
	h := newHarness(t, openEmbedded(t))
	org := h.env.Org(t)
	admin := org.Admin.Header()

	r := h.do(t, "POST", "/v2/groups", admin, `{"name":"Reviewers","description":"people who review"}`)
	var g struct{ ID, Name, Visibility string }
	r.json(t, &g)
	if r.status != 200 || g.Name != "Reviewers" || g.Visibility != "public" {
		t.Fatalf("create group: %s", r)
	}

	creates := []struct {
		name, body string
		status     int
		want       string
	}{
		{"name taken in another case", `{"name":"reviewers"}`, 422,
			`{"detail":[{"type":"value_error","loc":["body","name"],"msg":"Value error, Group with this name already exists","input":"reviewers","ctx":{"error":{}}}]}`},
		{"bad visibility", `{"name":"x","visibility":"secret"}`, 422,
			`{"detail":[{"type":"enum","loc":["body","visibility"],"msg":"Input should be 'public', 'private' or 'hidden'","input":"secret","ctx":{"expected":"'public', 'private' or 'hidden'"}}]}`},
		{"private", `{"name":"Private ones","visibility":"private"}`, 200, ""},
	}
	for _, tt := range creates {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, "POST", "/v2/groups", admin, tt.body)
			if r.status != tt.status || (tt.want != "" && string(r.body) != tt.want) {
				t.Fatalf("got %s\nwant %d %s", r, tt.status, tt.want)
			}
		})
	}
	if r := h.do(t, "POST", "/v2/groups", org.Manager.Header(), `{"name":"Mine"}`); r.status != 403 {
		t.Fatalf("manager creates a group: %s", r)
	}
	if r := h.do(t, "GET", "/v2/groups/"+g.ID, org.ReadOnly.Header(), ""); r.status != 200 || !strings.Contains(string(r.body), `"name":"Reviewers"`) {
		t.Fatalf("read group: %s", r)
	}

	members := "/v2/groups/" + g.ID + "/members"
	adds := []struct {
		name, path, body string
		hdr              bool // as admin, else as manager
		status           int
		want             string
	}{
		{"add two", members, `[{"user_id":"` + org.User.UserID + `"},{"user_id":"` + org.ReadOnly.UserID + `","role":"maintainer"}]`, true, 200, ""},
		{"already a member", members, `[{"user_id":"` + org.Manager.UserID + `"},{"user_id":"` + org.User.UserID + `"}]`, true, 422,
			`{"detail":[{"type":"value_error","loc":["body",1,"user_id"],"msg":"Value error, User is already a member of the group","input":"` + org.User.UserID + `","ctx":{"error":{}}}]}`},
		{"unknown user", members, `[{"user_id":"` + uuid.NewString() + `"}]`, true, 422, ""},
		{"named twice", members, `[{"user_id":"` + org.Manager.UserID + `"},{"user_id":"` + org.Manager.UserID + `"}]`, true, 422, ""},
		{"empty list", members, `[]`, true, 422,
			`{"detail":[{"type":"too_short","loc":["body"],"msg":"List should have at least 1 item after validation, not 0","input":[],"ctx":{"actual_length":0,"field_type":"List","min_length":1}}]}`},
		{"bad role", members, `[{"user_id":"` + org.Manager.UserID + `","role":"owner"}]`, true, 422, ""},
		{"not an admin", members, `[{"user_id":"` + org.Manager.UserID + `"}]`, false, 403, `{"detail":"Only organization admins can perform this action"}`},
		{"unknown group", "/v2/groups/" + uuid.NewString() + "/members", `[{"user_id":"` + org.Manager.UserID + `"}]`, true, 404, `{"detail":"Group not found"}`},
		{"bad group id", "/v2/groups/x/members", `[]`, true, 422, ""},
	}
	for _, tt := range adds {
		t.Run(tt.name, func(t *testing.T) {
			hdr := org.Manager.Header()
			if tt.hdr {
				hdr = admin
			}
			r := h.do(t, "POST", tt.path, hdr, tt.body)
			if r.status != tt.status || (tt.want != "" && string(r.body) != tt.want) {
				t.Fatalf("got %s\nwant %d %s", r, tt.status, tt.want)
			}
		})
	}

	// Nothing of a refused request was stored; the store sees the members of "add two".
	ms, err := store.GroupMembers(t.Context(), h.env.Table, g.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("members %+v, %v; want 2", ms, err)
	}
	groups, err := store.UserGroups(t.Context(), h.env.Table, org.ID, org.ReadOnly.UserID)
	if err != nil || len(groups) != 1 || groups[0].ID != g.ID {
		t.Fatalf("groups of the read-only user %+v, %v", groups, err)
	}
}

// TestCrossOrganization: whatever their role, users of one organization cannot read or act
// on another organization's users, groups or keys: it is all "not found".
func TestCrossOrganization(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) { testCrossOrganization(t, b.open(t)) })
	}
}

func testCrossOrganization(t *testing.T, tbl store.Table) {
	h := newHarness(t, tbl)
	a, b := h.env.Org(t), h.env.Org(t)
	bGroup := h.env.Group(t, b, "B team", b.User)
	aGroup := h.env.Group(t, a, "A team")

	tests := []struct {
		name, method, path, body string
		status                   int
		want                     string
	}{
		{"read B's user", "GET", "/v2/users/" + b.User.UserID, "", 404, `{"detail":"User not found"}`},
		{"read B's group", "GET", "/v2/groups/" + bGroup.ID, "", 404, `{"detail":"Group not found"}`},
		{"add to B's group", "POST", "/v2/groups/" + bGroup.ID + "/members", `[{"user_id":"` + a.User.UserID + `"}]`, 404, `{"detail":"Group not found"}`},
		{"revoke B's key", "DELETE", "/v2/api_keys/" + keyID(b.User.APIKey), "", 404, `{"detail":"API key not found"}`},
		{"add B's user to A's group", "POST", "/v2/groups/" + aGroup.ID + "/members", `[{"user_id":"` + b.User.UserID + `"}]`, 422,
			`{"detail":[{"type":"value_error","loc":["body",0,"user_id"],"msg":"Value error, User not found","input":"` + b.User.UserID + `","ctx":{"error":{}}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do(t, tt.method, tt.path, a.Admin.Header(), tt.body)
			if r.status != tt.status || string(r.body) != tt.want {
				t.Fatalf("got %s\nwant %d %s", r, tt.status, tt.want)
			}
		})
	}
	// B is untouched: its key works, its group has its one member, A lists only A's keys.
	if r := h.do(t, "GET", "/v2/current_user", b.User.Header(), ""); r.status != 200 {
		t.Fatalf("B's key: %s", r)
	}
	if ms, err := store.GroupMembers(t.Context(), h.env.Table, bGroup.ID); err != nil || len(ms) != 1 || ms[0].UserID != b.User.UserID {
		t.Fatalf("B's group members %+v, %v", ms, err)
	}
	for _, k := range listKeys(t, h, a.Admin.Header()) {
		if k.ID == keyID(b.User.APIKey) {
			t.Fatal("A lists B's key")
		}
	}
	if gs, err := store.UserGroups(t.Context(), h.env.Table, a.ID, b.User.UserID); err != nil || len(gs) != 0 {
		t.Fatalf("B's user has groups in A: %+v, %v", gs, err)
	}
}
