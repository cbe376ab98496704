// Package datasets serves datasets: creating them (from JSON rows, an uploaded CSV, JSONL or
// JSON file, or a copy of another dataset), listing and searching them, reading, renaming
// and deleting one, reading their content (operation 6) at the current or any earlier
// version, editing it (every edit kind of the original's clients, each write a new
// version), replacing it (a rollback or another dataset's content), listing and naming the
// versions, sharing datasets with users and groups and listing the groups (operation 7),
// and deleting many at once (operation 5).
//
// Bulk deletion removes only each dataset's META record; the rows and shares go in the
// background, through the table's stream (shared/purge).
package datasets

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// Payloads holds the large contents of logged records (copy_record_data reads them);
	// nil is memory (tests).
	Payloads payload.Store
	// Segments keeps the content segments that pages read (store.SegmentCache); nil reads
	// them every time.
	Segments *store.SegmentCache
	// Pages keeps the encoded rows of pages served (PageCache); nil encodes every page.
	Pages *PageCache
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("datasets")
	if d.Payloads == nil {
		d.Payloads = payload.NewMemory()
	}
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/datasets", h.create, d.Authenticate)
	rt.Handle("GET /v2/datasets", h.listDatasets, d.Authenticate)
	rt.Handle("POST /v2/datasets/query", h.queryDatasets, d.Authenticate)
	rt.Handle("DELETE /v2/datasets/bulk_delete", h.bulkDelete, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}", h.getDataset, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/projects", h.listProjects, d.Authenticate)
	rt.Handle("PATCH /v2/datasets/{dataset_id}", h.patchDataset, d.Authenticate)
	rt.Handle("DELETE /v2/datasets/{dataset_id}", h.deleteDataset, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/content", h.content, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/content", h.appendRows, d.Authenticate)
	rt.Handle("PATCH /v2/datasets/{dataset_id}/content", h.updateContent, d.Authenticate)
	rt.Handle("PUT /v2/datasets/{dataset_id}/content", h.replaceContent, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/versions", h.listVersions, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/versions/query", h.queryVersions, d.Authenticate)
	rt.Handle("PATCH /v2/datasets/{dataset_id}/versions/{version_index}", h.nameVersion, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/versions/{version_index}/content", h.versionContent, d.Authenticate)
	rt.Handle("GET /v2/datasets/{dataset_id}/groups", h.listGroups, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/groups", h.shareWithGroups, d.Authenticate)
	rt.Handle("POST /v2/datasets/{dataset_id}/users", h.shareWithUsers, d.Authenticate)
}

type handlers struct{ Deps }
