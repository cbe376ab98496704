package identity

import (
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

type groupResponse struct {
	ID          string  `json:"id"`
	Name        string  `json:"name"`
	Description *string `json:"description"`
	Visibility  string  `json:"visibility"`
	CreatedBy   string  `json:"created_by"`
	CreatedAt   string  `json:"created_at"`
}

func groupOut(g store.Group) groupResponse {
	out := groupResponse{ID: g.ID, Name: g.Name, Visibility: g.Visibility, CreatedBy: g.CreatedBy, CreatedAt: timestamp(g.CreatedAt)}
	if g.Description != "" {
		out.Description = &g.Description
	}
	return out
}

// createGroup is POST /v2/groups: an organization admin creates a group; names are unique
// in the organization, case-insensitively.
func (h *handlers) createGroup(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Admin: true}, func(in *base.Input) store.Group {
		g := store.Group{Visibility: store.GroupPublic}
		if body, ok := in.Body().Required().Object(); ok {
			g.Name, _ = body.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(255))
			g.Description, _ = body.Get("description").Nullable().String(validate.MaxLen(2000))
			if v, ok := body.Get("visibility").Enum(store.GroupPublic, store.GroupPrivate, store.GroupHidden); ok {
				g.Visibility = v
			}
		}
		return g
	})
	if err != nil {
		return err
	}
	c, g := call.Caller, call.In
	g.ID, g.OrgID, g.CreatedBy, g.CreatedAt = uuid.NewString(), c.OrgID, c.UserID, h.Stamp()
	err = store.CreateGroup(r.Context(), h.Table, g)
	if errors.Is(err, store.ErrAlreadyExists) {
		return validate.Single(validate.ValueError([]any{"body", "name"}, g.Name, "Group with this name already exists"))
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, groupOut(g))
	return nil
}

// getGroup is GET /v2/groups/{group_id}.
func (h *handlers) getGroup(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("group_id", 4))
	if err != nil {
		return err
	}
	g, err := store.GetGroup(r.Context(), h.Table, call.Caller.OrgID, call.In)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Group")
	}
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, groupOut(g))
	return nil
}
