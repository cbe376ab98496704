package datasets

import (
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// maxBulkDelete is the most ids one bulk deletion takes (§8).
const maxBulkDelete = 100

// Reasons of a failed deletion.
const (
	reasonNotFound     = "Dataset not found"
	reasonNoPermission = "You do not have permission to delete this dataset"
)

type bulkDeleteResponse struct {
	DeletedCount    int              `json:"deleted_count"`
	Message         string           `json:"message"`
	FailedDeletions []failedDeletion `json:"failed_deletions"`
}

type failedDeletion struct {
	DatasetID   string `json:"dataset_id"`
	DatasetName string `json:"dataset_name"`
	Reason      string `json:"reason"`
}

// bulkDelete is DELETE /v2/datasets/bulk_delete (operation 5): {"dataset_ids": [1..100
// UUIDs]}. Each dataset is judged on its own: those the caller may delete (owner or editor,
// directly or through a group, or an organization admin) are deleted, every other one is
// reported in failed_deletions with a 200. Ids given twice count once. A dataset unknown to
// the caller's organization is "not found", with no name, whether or not another
// organization has it; a dataset the caller may not even read is named to them neither.
//
// Only the datasets' META records are deleted here, in one transaction, so the answer does
// not wait for their rows; the purge worker removes those from the stream.
func (h *handlers) bulkDelete(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ReadBody(readDatasetIDs))
	if err != nil {
		return err
	}
	c, ids, ctx := call.Caller, call.In, r.Context()
	grants, err := h.grants(ctx, c, ids, true) // strongly consistent: a share just revoked must not grant
	if err != nil {
		return err
	}
	failed := map[string]failedDeletion{}
	var permitted []string
	for _, id := range ids {
		g, ok := grants[id]
		switch {
		case !ok:
			failed[id] = failedDeletion{DatasetID: id, Reason: reasonNotFound}
		case !allowed(g.Role, "delete"):
			f := failedDeletion{DatasetID: id, Reason: reasonNoPermission}
			if g.Role != "" { // the name only to those who may read the dataset
				f.DatasetName = g.Dataset.Name
			}
			failed[id] = f
		default:
			permitted = append(permitted, id)
		}
	}
	deleted, err := store.DeleteDatasets(ctx, h.Table, c.OrgID, permitted)
	if err != nil {
		return err
	}
	for _, id := range permitted {
		if indexOf(deleted, id) < 0 { // went away meanwhile: deleted by a concurrent request
			failed[id] = failedDeletion{DatasetID: id, Reason: reasonNotFound}
		}
	}
	resp := bulkDeleteResponse{FailedDeletions: []failedDeletion{}}
	for _, id := range ids {
		if f, ok := failed[id]; ok {
			resp.FailedDeletions = append(resp.FailedDeletions, f)
		}
	}
	resp.DeletedCount = len(deleted)
	resp.Message = fmt.Sprintf("Deleted %d of %d datasets", len(deleted), len(ids))
	h.Log.InfoContext(ctx, "bulk delete of datasets", "request_id", httpapi.RequestID(ctx),
		"requested", len(ids), "deleted", len(deleted))
	httpapi.WriteJSON(w, http.StatusOK, resp)
	return nil
}

// readDatasetIDs reads {"dataset_ids": [...]}: the distinct ids in the order given.
func readDatasetIDs(errs *validate.Errors, raw any, present bool) []string {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return nil
	}
	items, _ := o.Get("dataset_ids").Required().List(validate.MinLen(1), validate.MaxLen(maxBulkDelete))
	var ids []string
	for _, item := range items {
		if id, ok := item.UUID(4); ok && indexOf(ids, id) < 0 {
			ids = append(ids, id)
		}
	}
	return ids
}
