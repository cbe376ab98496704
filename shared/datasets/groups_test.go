package datasets_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/store"
)

type groupList struct {
	Collaborators     []groupCollab `json:"collaborators"`
	StartingToken     int           `json:"starting_token"`
	Limit             int           `json:"limit"`
	Paginated         bool          `json:"paginated"`
	NextStartingToken *int          `json:"next_starting_token"`
}

type groupCollab struct {
	ID          string       `json:"id"`
	Role        string       `json:"role"`
	CreatedAt   string       `json:"created_at"`
	GroupID     string       `json:"group_id"`
	GroupName   string       `json:"group_name"`
	Permissions []permission `json:"permissions"`
}

type permission struct {
	Action  string  `json:"action"`
	Allowed bool    `json:"allowed"`
	Message *string `json:"message"`
}

// TestGroupCollaborators shares a dataset with three groups at two times and lists them in
// sharing order, then by group id, page by page.
func TestGroupCollaborators(t *testing.T) {
	h := newHarness(t)
	owner, viewer := h.org.User, h.newUser()
	d := h.create(owner, "shared", []string{"a"}, nil)
	h.shareUser(owner, d.ID, viewer, "viewer")
	first := h.auth.Group(t, h.org, "first")
	b, c := h.auth.Group(t, h.org, "b"), h.auth.Group(t, h.org, "c")
	t1, t2 := t0.Add(time.Minute), t0.Add(2*time.Minute)

	h.clock.Set(t1)
	var shared []groupCollab
	h.must(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": first.ID, "role": "editor"}}, &shared)
	h.clock.Set(t2)
	h.must(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": c.ID}, {"group_id": b.ID, "role": "annotator"}}, &shared)
	if len(shared) != 2 || shared[0].GroupID != c.ID || shared[0].Role != "viewer" || shared[1].GroupName != "b" {
		t.Fatalf("share answered %+v", shared)
	}

	type entry struct{ id, name, role, at string }
	later := []entry{{c.ID, "c", "viewer", t2.Format(time.RFC3339)}, {b.ID, "b", "annotator", t2.Format(time.RFC3339)}}
	slices.SortFunc(later, func(x, y entry) int { return strings.Compare(x.id, y.id) })
	all := append([]entry{{first.ID, "first", "editor", t1.Format(time.RFC3339)}}, later...)

	tests := []struct {
		name, query string
		start, lim  int
		next        *int
		want        []entry
	}{
		{"defaults", "", 0, 100, nil, all},
		{"first", "?limit=2", 0, 2, ptr(2), all[:2]},
		{"middle", "?starting_token=1&limit=1", 1, 1, ptr(2), all[1:2]},
		{"last", "?starting_token=2&limit=2", 2, 2, nil, all[2:]},
		{"past the end", "?starting_token=3", 3, 100, nil, nil},
	}
	for _, who := range []struct {
		name    string
		user    *authtest.User
		mayEdit bool
	}{{"owner", &owner, true}, {"viewer", &viewer, false}} {
		for _, tt := range tests {
			t.Run(who.name+"/"+tt.name, func(t *testing.T) {
				var l groupList
				h.must(who.user, "GET", "/v2/datasets/"+d.ID+"/groups"+tt.query, nil, &l)
				if l.StartingToken != tt.start || l.Limit != tt.lim || l.Paginated != (tt.next != nil) || !eqPtr(l.NextStartingToken, tt.next) {
					t.Errorf("envelope %+v, want start %d limit %d next %v", l, tt.start, tt.lim, tt.next)
				}
				if len(l.Collaborators) != len(tt.want) {
					t.Fatalf("%d collaborators, want %d", len(l.Collaborators), len(tt.want))
				}
				wantPerms := []permission{{"update", who.mayEdit, nil}, {"delete", who.mayEdit, nil}}
				for i, w := range tt.want {
					g := l.Collaborators[i]
					if _, err := uuid.Parse(g.ID); err != nil || g.GroupID != w.id || g.GroupName != w.name || g.Role != w.role ||
						g.CreatedAt != w.at || !slices.Equal(g.Permissions, wantPerms) {
						t.Errorf("collaborator %d = %+v, want %+v with permissions %v", i, g, w, wantPerms)
					}
				}
			})
		}
	}
}

// TestShareWithGroupsRefusals checks what sharing with groups refuses; a refused request
// shares nothing.
func TestShareWithGroupsRefusals(t *testing.T) {
	h := newHarness(t)
	owner, editor := h.org.User, h.newUser()
	d := h.create(owner, "d", []string{"a"}, nil)
	h.shareUser(owner, d.ID, editor, "editor")
	g1, g2 := h.auth.Group(t, h.org, "g1"), h.auth.Group(t, h.org, "g2")
	h.must(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": g1.ID}}, nil)
	foreign := h.auth.Group(t, h.auth.Org(t), "foreign")
	stranger := h.auth.Org(t).Admin
	tooMany := make([]map[string]any, store.MaxDatasetGroupShares+1)
	for i := range tooMany {
		tooMany[i] = map[string]any{"group_id": uuid.NewString()}
	}
	tests := []struct {
		name   string
		user   *authtest.User
		body   any
		status int
		want   string
	}{
		{"already shared", &owner, []map[string]any{{"group_id": g2.ID}, {"group_id": g1.ID}}, 422, "value_error@body.1.group_id"},
		{"twice", &owner, []map[string]any{{"group_id": g2.ID}, {"group_id": g2.ID}}, 422, "value_error@body.1.group_id"},
		{"unknown group", &owner, []map[string]any{{"group_id": uuid.NewString()}}, 422, "value_error@body.0.group_id"},
		{"another org's group", &owner, []map[string]any{{"group_id": foreign.ID}}, 422, "value_error@body.0.group_id"},
		{"bad role", &owner, []map[string]any{{"group_id": g2.ID, "role": "boss"}}, 422, "enum@body.0.role"},
		{"no group id", &owner, []map[string]any{{"role": "viewer"}}, 422, "missing@body.0.group_id"},
		{"empty", &owner, []any{}, 422, "too_short@body"},
		{"too many", &owner, tooMany, 422, "too_long@body"},
		{"not the owner", &editor, []map[string]any{{"group_id": g2.ID}}, 403, `{"detail":"Only the dataset's owner can share it"}`},
		{"another org", &stranger, []map[string]any{{"group_id": g2.ID}}, 404, `{"detail":"Dataset not found"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := h.request(tt.user, "POST", "/v2/datasets/"+d.ID+"/groups", tt.body)
			got := string(resp.body)
			if resp.code == http.StatusUnprocessableEntity {
				got = problems(t, resp)
			}
			if resp.code != tt.status || got != tt.want {
				t.Errorf("got %d %s (%s)\nwant %d %s", resp.code, got, resp.body, tt.status, tt.want)
			}
		})
	}
	var l groupList
	h.must(&owner, "GET", "/v2/datasets/"+d.ID+"/groups", nil, &l)
	if len(l.Collaborators) != 1 || l.Collaborators[0].GroupID != g1.ID {
		t.Errorf("after the refusals the dataset is shared with %+v", l.Collaborators)
	}
	resp := h.request(&owner, "POST", "/v2/datasets/"+d.ID+"/groups", []map[string]any{{"group_id": g2.ID}, {"group_id": g1.ID}})
	if !strings.Contains(string(resp.body), "Value error, The group already has access to this dataset") {
		t.Errorf("message: %s", resp.body)
	}
}
