package identity

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// maxMembersPerRequest keeps one request within one transaction.
const maxMembersPerRequest = store.MaxTransactItems

type memberResponse struct {
	GroupID   string `json:"group_id"`
	UserID    string `json:"user_id"`
	Role      string `json:"role"`
	Email     string `json:"email"`
	FirstName string `json:"first_name"`
	LastName  string `json:"last_name"`
	CreatedAt string `json:"created_at"`
}

type newMember struct {
	userID, role string
	loc          []any // of the user_id, for the rules checked after reading
}

func readNewMembers(r *http.Request) ([]newMember, error) {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return nil, err
	}
	errs := validate.New()
	var out []newMember
	items, _ := errs.Body(raw, present).Required().List(validate.MinLen(1), validate.MaxLen(maxMembersPerRequest))
	for _, it := range items {
		obj, ok := it.Object()
		if !ok {
			continue
		}
		v := obj.Get("user_id").Required()
		m := newMember{role: store.MemberRegular, loc: v.Loc()}
		m.userID, _ = v.UUID(4)
		if role, ok := obj.Get("role").Enum(store.MemberMaintainer, store.MemberRegular); ok {
			m.role = role
		}
		out = append(out, m)
	}
	return out, errs.Err()
}

// addGroupMembers is POST /v2/groups/{group_id}/members: an organization admin adds users
// of the organization to a group, all or none. An unknown user, a user already in the
// group or a user named twice is a 422 at that item.
func (h *handlers) addGroupMembers(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	errs := validate.New()
	groupID, _ := errs.Path("group_id", r.PathValue("group_id")).UUID(4)
	members, berr := readNewMembers(r)
	var bodyErrs *validate.Errors
	if errors.As(berr, &bodyErrs) {
		for _, d := range bodyErrs.Detail {
			errs.Add(d)
		}
	} else if berr != nil {
		return berr
	}
	if err := errs.Err(); err != nil {
		return err
	}

	g, err := store.GetGroup(ctx, h.Table, c.OrgID, groupID)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Group")
	}
	if err != nil {
		return err
	}
	if err := auth.RequireAdmin(ctx); err != nil {
		return err
	}
	users, err := h.memberUsers(r, g, members)
	if err != nil {
		return err
	}

	now := h.Stamp()
	recs := make([]store.GroupMember, len(members))
	out := make([]memberResponse, len(members))
	for i, m := range members {
		u := users[m.userID]
		recs[i] = store.GroupMember{GroupID: g.ID, UserID: u.ID, OrgID: g.OrgID, Role: m.role, CreatedAt: now}
		out[i] = memberResponse{GroupID: g.ID, UserID: u.ID, Role: m.role, Email: u.Email,
			FirstName: u.FirstName, LastName: u.LastName, CreatedAt: timestamp(now)}
	}
	err = store.AddGroupMembers(ctx, h.Table, recs)
	if errors.Is(err, store.ErrAlreadyExists) {
		// A concurrent request added one of them since the check.
		return validate.Single(validate.ValueError([]any{"body"}, nil, "A user is already a member of the group"))
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}

// memberUsers reads the users to add and checks the rules on them, reporting each broken
// rule at its item.
func (h *handlers) memberUsers(r *http.Request, g store.Group, members []newMember) (map[string]store.User, error) {
	ids := make([]string, len(members))
	for i, m := range members {
		ids[i] = m.userID
	}
	found, err := store.OrgUsers(r.Context(), h.Table, g.OrgID, ids)
	if err != nil {
		return nil, err
	}
	current, err := store.GroupMembers(r.Context(), h.Table, g.ID)
	if err != nil {
		return nil, err
	}
	users := make(map[string]store.User, len(found))
	for _, u := range found {
		users[u.ID] = u
	}
	already := make(map[string]bool, len(current))
	for _, m := range current {
		already[m.UserID] = true
	}
	errs := validate.New()
	seen := map[string]bool{}
	for _, m := range members {
		switch {
		case users[m.userID].ID == "":
			errs.Add(validate.ValueError(m.loc, m.userID, "User not found"))
		case already[m.userID]:
			errs.Add(validate.ValueError(m.loc, m.userID, "User is already a member of the group"))
		case seen[m.userID]:
			errs.Add(validate.ValueError(m.loc, m.userID, "User is named more than once"))
		}
		seen[m.userID] = true
	}
	return users, errs.Err()
}
