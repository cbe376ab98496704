package datasets

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Writes of a dataset's content: appending rows (POST, here) and updating rows by row id
// (PATCH, content_update.go). Each makes the next content version. Both take an optional
// If-Match with the ETag of a GET: a dataset changed since answers 412.

// errBusy answers a write whose every attempt lost its race with other writers: 423, which
// the original's clients expect of a dataset being changed.
var errBusy = &httpapi.StatusError{Status: http.StatusLocked, Detail: "The dataset is being changed by other requests; retry shortly"}

// contentError turns the repository's refusals into answers.
func contentError(err error) error {
	switch {
	case errors.Is(err, store.ErrDatasetVersion):
		return errStale
	case errors.Is(err, store.ErrDatasetBusy):
		return errBusy
	case errors.Is(err, store.ErrNotFound): // deleted meanwhile
		return errNotFound
	}
	return err
}

// appendRows is POST /v2/datasets/{dataset_id}/content: {"rows": [...]} after the last row.
func (h *handlers) appendRows(w http.ResponseWriter, r *http.Request) error {
	// The body is read twice: its shape in the opening, its rows against the columns once
	// the dataset is known.
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x base.Keyed[*base.Input]) {
		x.ID, _ = in.Path("dataset_id").UUID(4)
		readAppend(in.Errs, in.Raw, in.Present, nil)
		x.Req = in
		return x
	})
	if err != nil {
		return err
	}
	c, id, body := call.Caller, call.In.ID, call.In.Req
	g, version, err := h.editable(r, c, id)
	if err != nil {
		return err
	}
	errs := validate.New()
	rows := readAppend(errs, body.Raw, body.Present, g.Dataset.ColumnNames)
	if err := errs.Err(); err != nil {
		return err
	}
	d, err := store.AppendDatasetRows(r.Context(), h.Table, c.OrgID, id, version, newRows(rows), c.UserID, h.Stamp())
	if err != nil {
		return contentError(err)
	}
	return h.writeDataset(r.Context(), w, c, d, g.Role)
}

// editable is the preamble of every content write, once the request is valid: the caller,
// their grant on dataset id (404 without one), the right to edit (403), and the content
// version the write must find, from If-Match (412 when the dataset changed since).
func (h *handlers) editable(r *http.Request, c auth.Caller, id string) (store.DatasetGrant, int64, error) {
	g, err := h.grant(r.Context(), c, id)
	if err != nil {
		return store.DatasetGrant{}, 0, err
	}
	if !allowed(g.Role, "update") {
		return store.DatasetGrant{}, 0, errNoEdit
	}
	version, err := ifMatch(r, g.Dataset.Version)
	if err != nil {
		return store.DatasetGrant{}, 0, err
	}
	return g, version, nil
}

// readAppend reads the body of an append; columns is nil before the dataset is known.
func readAppend(errs *validate.Errors, raw any, present bool, columns []string) [][]any {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return nil
	}
	rows, _ := readRows(o.Get("rows").Required(), columns, validate.MinLen(1))
	return rows
}
