package datasets

import (
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// One dataset: read (GET), renamed or published (PATCH, the original's UpdateDatasetRequest)
// and deleted (DELETE) by its id.

// getDataset is GET /v2/datasets/{dataset_id}.
func (h *handlers) getDataset(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, datasetID)
	if err != nil {
		return err
	}
	c, id := call.Caller, call.In
	g, err := h.grant(r.Context(), c, id)
	if err != nil {
		return err
	}
	return h.writeDataset(r.Context(), w, c, g.Dataset, g.Role)
}

// patchDataset is PATCH /v2/datasets/{dataset_id}: name (a string, or the original's
// {"value", "append_suffix_if_duplicate"}) needs the rename right; draft (only false: a
// draft is published) and column_mapping (accepted, not kept) the update right.
func (h *handlers) patchDataset(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onDataset(readPatch))
	if err != nil {
		return err
	}
	c, id, name, suffix, draft := call.Caller, call.In.ID, call.In.Req.name, call.In.Req.suffix, call.In.Req.draft
	g, err := h.grant(r.Context(), c, id)
	if err != nil {
		return err
	}
	if name != nil && !allowed(g.Role, "rename") || draft != nil && !allowed(g.Role, "update") {
		return errNoEdit
	}
	if name != nil && suffix {
		free, err := h.freeName(r.Context(), c, *name, id)
		if err != nil {
			return err
		}
		name = &free
	}
	d, err := store.UpdateDatasetInfo(r.Context(), h.Table, c.OrgID, id, name, draft, c.UserID, h.Stamp())
	if err != nil {
		return contentError(err)
	}
	return h.writeDataset(r.Context(), w, c, d, g.Role)
}

// datasetPatch is what a PATCH of a dataset asks: a new name (with a suffix when it is
// taken) and publication.
type datasetPatch struct {
	name   *string
	suffix bool
	draft  *bool
}

func readPatch(errs *validate.Errors, raw any, present bool) (p datasetPatch) {
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		nv := o.Get("name").Nullable()
		if _, isObject := nv.Raw().(map[string]any); isObject {
			if n, ok := nv.Object(); ok {
				if s, ok := n.Get("value").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen)); ok {
					p.name = &s
				}
				p.suffix, _ = n.Get("append_suffix_if_duplicate").Bool()
			}
		} else if s, ok := nv.String(validate.MinLen(1), validate.MaxLen(maxNameLen)); ok {
			p.name = &s
		}
		if dv := o.Get("draft").Nullable(); dv.Present() && !dv.IsNull() {
			if b, ok := dv.Bool(); ok && b {
				dv.Add(validate.Literal(dv.Loc(), dv.Raw(), []string{"False"}))
			} else if ok {
				p.draft = &b
			}
		}
		o.Get("column_mapping").Nullable().Dict()
	}
	return p
}

// deleteDataset is DELETE /v2/datasets/{dataset_id}: the dataset goes at once, its content
// and shares in the background (as bulk deletion); the delete right.
func (h *handlers) deleteDataset(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, datasetID)
	if err != nil {
		return err
	}
	c, id := call.Caller, call.In
	g, err := h.grant(r.Context(), c, id)
	if err != nil {
		return err
	}
	if !allowed(g.Role, "delete") {
		return httpapi.Forbidden("You do not have permission to delete this dataset")
	}
	deleted, err := store.DeleteDatasets(r.Context(), h.Table, c.OrgID, []string{id})
	if err != nil {
		return err
	}
	if len(deleted) == 0 {
		return errNotFound
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]string{"message": fmt.Sprintf("Deleted dataset %s", g.Dataset.Name)})
	return nil
}
