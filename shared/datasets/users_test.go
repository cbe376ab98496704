package datasets_test

import (
	"net/http"
	"reflect"
	"testing"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
)

type userCollab struct {
	ID          string       `json:"id"`
	Role        string       `json:"role"`
	CreatedAt   string       `json:"created_at"`
	UserID      string       `json:"user_id"`
	FirstName   string       `json:"first_name"`
	LastName    string       `json:"last_name"`
	Email       string       `json:"email"`
	Permissions []permission `json:"permissions"`
}

// TestShareWithUsers shares a dataset with users named by id and by e-mail, and checks what
// sharing refuses.
func TestShareWithUsers(t *testing.T) {
	h := newHarness(t)
	owner, a, b, c := h.org.User, h.newUser(), h.newUser(), h.newUser()
	d := h.create(owner, "d", []string{"a"}, nil)
	path := "/v2/datasets/" + d.ID + "/users"

	var out []userCollab
	h.must(&owner, "POST", path, []map[string]any{{"user_id": a.UserID, "role": "editor"}, {"user_email": b.Email}}, &out)
	perms := []permission{{"update", true, nil}, {"delete", true, nil}}
	want := []userCollab{
		{Role: "editor", CreatedAt: "2026-04-01T09:00:00Z", UserID: a.UserID, FirstName: a.FirstName, LastName: a.LastName, Email: a.Email, Permissions: perms},
		{Role: "viewer", CreatedAt: "2026-04-01T09:00:00Z", UserID: b.UserID, FirstName: b.FirstName, LastName: b.LastName, Email: b.Email, Permissions: perms},
	}
	if len(out) != 2 {
		t.Fatalf("answered %+v", out)
	}
	for i := range want {
		want[i].ID = out[i].ID
		if _, err := uuid.Parse(out[i].ID); err != nil || !reflect.DeepEqual(out[i], want[i]) {
			t.Errorf("collaborator %d = %+v\n want %+v", i, out[i], want[i])
		}
	}
	// The shares took effect: b reads, a edits.
	h.must(&b, "GET", "/v2/datasets/"+d.ID+"/content", nil, nil)
	h.must(&a, "POST", "/v2/datasets/"+d.ID+"/content", map[string]any{"rows": [][]any{{"x"}}}, nil)

	stranger := h.auth.Org(t).User
	tests := []struct {
		name   string
		user   *authtest.User
		body   any
		status int
		want   string
	}{
		{"the owner", &owner, []map[string]any{{"user_id": owner.UserID}}, 422, "value_error@body.0.user_id"},
		{"has a role already", &owner, []map[string]any{{"user_id": c.UserID}, {"user_email": a.Email}}, 422, "value_error@body.1.user_email"},
		{"has a role already, by id", &owner, []map[string]any{{"user_id": a.UserID}}, 422, "value_error@body.0.user_id"},
		{"twice", &owner, []map[string]any{{"user_id": c.UserID}, {"user_email": c.Email}}, 422, "value_error@body.1.user_email"},
		{"unknown id", &owner, []map[string]any{{"user_id": uuid.NewString()}}, 422, "value_error@body.0.user_id"},
		{"unknown e-mail", &owner, []map[string]any{{"user_email": "nobody@example.com"}}, 422, "value_error@body.0.user_email"},
		{"another org's user", &owner, []map[string]any{{"user_id": stranger.UserID}}, 422, "value_error@body.0.user_id"},
		{"id and e-mail disagree", &owner, []map[string]any{{"user_id": c.UserID, "user_email": a.Email}}, 422, "value_error@body.0"},
		{"neither", &owner, []map[string]any{{"role": "viewer"}}, 422, "value_error@body.0"},
		{"both null", &owner, []map[string]any{{"user_id": nil, "user_email": nil}}, 422, "value_error@body.0"},
		{"bad role", &owner, []map[string]any{{"user_id": c.UserID, "role": "root"}}, 422, "enum@body.0.role"},
		{"not a list", &owner, map[string]any{"user_id": c.UserID}, 422, "list_type@body"},
		{"an editor shares", &a, []map[string]any{{"user_id": c.UserID}}, 403, `{"detail":"Only the dataset's owner can share it"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.request(tt.user, "POST", path, tt.body)
			got := string(resp.body)
			if resp.code == http.StatusUnprocessableEntity {
				got = problems(t, resp)
			}
			if resp.code != tt.status || got != tt.want {
				t.Errorf("got %d %s (%s)\nwant %d %s", resp.code, got, resp.body, tt.status, tt.want)
			}
		})
	}
	// Nothing of the refused requests was stored: c still has no role.
	if r := h.request(&c, "GET", "/v2/datasets/"+d.ID+"/content", nil); r.code != http.StatusForbidden {
		t.Errorf("c reads the dataset: %d", r.code)
	}
}
