package datasets

import (
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// content is GET /v2/datasets/{dataset_id}/content (operation 6): a page of rows in index
// order from starting_token, read with one Query from that row, so that a page costs its
// own rows at any offset. The ETag header names the content version the page belongs to.
func (h *handlers) content(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	id, _ := errs.Path("dataset_id", r.PathValue("dataset_id")).UUID(4)
	start, limit := errs.Page(r.URL.Query())
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	ctx := r.Context()
	g, err := h.grant(ctx, c, id)
	if err != nil {
		return err
	}
	d := g.Dataset
	p := newRowPage(d, start, limit, maxPageBytes)
	var pending []store.DatasetRow
	for row, err := range store.DatasetRows(ctx, h.Table, d, int64(start), int64(start)+int64(limit)) {
		if err != nil {
			return err
		}
		if pending = append(pending, row); len(pending) == rowChunk {
			full, err := p.add(ctx, h.Table, pending)
			if err != nil {
				return err
			}
			if full {
				break
			}
			pending = pending[:0]
		}
	}
	if _, err := p.add(ctx, h.Table, pending); err != nil {
		return err
	}
	w.Header().Set("ETag", etag(d.Version))
	httpapi.WriteJSON(w, http.StatusOK, p.response())
	return nil
}
