// Package datasets serves datasets: creating them with rows, appending and updating rows,
// reading their content (operation 6), sharing them with users and groups and listing the
// groups (operation 7), and deleting many at once (operation 5).
//
// Bulk deletion removes only each dataset's META record; the rows and shares go in the
// background, through the table's stream (shared/purge).
package datasets

import (
	"log/slog"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps is what the group needs.
type Deps struct {
	Table        store.Table
	Authenticate httpapi.Middleware
	Now          func() time.Time // default time.Now
	Log          *slog.Logger     // default: discard
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	if d.Table == nil || d.Authenticate == nil {
		panic("datasets: Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
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

// now is the time records are stamped with: UTC, at the microsecond precision responses show.
func (h *handlers) now() time.Time { return h.Now().UTC().Truncate(time.Microsecond) }

// callerOf returns the authenticated caller; the middleware guarantees one, so its absence
// is answered as no credential at all.
func callerOf(r *http.Request) (auth.Caller, error) {
	c, ok := auth.CallerFrom(r.Context())
	if !ok {
		return auth.Caller{}, httpapi.Unauthorized("Not authenticated", "Bearer")
	}
	return c, nil
}
