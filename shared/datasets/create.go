package datasets

import (
	"errors"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// Bounds of a new dataset's fields.
const (
	maxNameLen = 255
	maxColumns = 1000
)

// newDataset is the body of POST /v2/datasets.
type newDataset struct {
	name      string
	columns   []string
	rows      [][]any
	projectID string
}

func readNewDataset(r *http.Request) (newDataset, error) {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return newDataset{}, err
	}
	errs := validate.New()
	var nd newDataset
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return newDataset{}, errs.Err()
	}
	nd.name, _ = o.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	columns, ok := readColumnNames(o.Get("column_names"))
	if ok {
		nd.columns = columns
	}
	nd.rows, _ = readRows(o.Get("rows").Nullable(), nd.columns)
	nd.projectID, _ = o.Get("project_id").Nullable().UUID(4)
	return nd, errs.Err()
}

// create is POST /v2/datasets: a dataset with its columns and, optionally, its first rows,
// owned by the caller.
func (h *handlers) create(w http.ResponseWriter, r *http.Request) error {
	nd, err := readNewDataset(r)
	if err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	if !c.CanWrite() {
		return httpapi.Forbidden("Read-only users cannot create datasets")
	}
	ctx := r.Context()
	if nd.projectID != "" {
		if _, err := store.GetProject(ctx, h.Table, c.OrgID, nd.projectID); errors.Is(err, store.ErrNotFound) {
			return httpapi.NotFound("Project")
		} else if err != nil {
			return err
		}
	}
	now := h.Stamp()
	d := store.Dataset{ID: uuid.NewString(), OrgID: c.OrgID, ProjectID: nd.projectID, Name: nd.name,
		ColumnNames: nd.columns, CreatedBy: c.UserID, CreatedAt: now}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: c.OrgID, UserID: c.UserID,
		Role: store.DatasetOwner, CreatedBy: c.UserID, CreatedAt: now}
	d, err = store.CreateDataset(ctx, h.Table, d, owner, newRows(nd.rows))
	if err != nil {
		return err
	}
	return h.writeDataset(ctx, w, c, d, roleOf(c, store.DatasetOwner))
}

// newRows gives each row of values a new row id.
func newRows(rows [][]any) []store.NewDatasetRow {
	out := make([]store.NewDatasetRow, len(rows))
	for i, values := range rows {
		out[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: values}
	}
	return out
}
