// Package datasets serves datasets: creating them with rows, appending and updating rows,
// reading their content (operation 6), sharing them with users and groups and listing the
// groups (operation 7), and deleting many at once (operation 5).
//
// Bulk deletion removes only each dataset's META record; the rows and shares go in the
// background, through the table's stream (shared/purge).
package datasets

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("datasets")
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/datasets", h.create, d.Authenticate)
	rt.Handle("DELETE /v2/datasets/bulk_delete", h.bulkDelete, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/content", h.content, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/content", h.appendRows, d.Authenticate)
	rt.Handle("PATCH /v2/datasets/{dataset_id}/content", h.updateRows, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/groups", h.listGroups, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/groups", h.shareWithGroups, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/users", h.shareWithUsers, d.Authenticate)
}

type handlers struct{ Deps }
