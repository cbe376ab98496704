package datasets

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// rowEdit is one update_row edit of a PATCH body.
type rowEdit struct {
	rowID  string
	loc    []any        // of the row_id
	values []namedValue // in the order of their names
}

// namedValue is a value that passed validation, with its column name and where it stood.
type namedValue struct {
	name  string
	value any
	loc   []any
	raw   any
}

// updateRows is PATCH /v2/datasets/{dataset_id}/content: {"edits": [{"edit_type":
// "update_row", "row_id", "values": {column: value}}]}, the original service's update_row
// edits. Only the named columns of each row change.
func (h *handlers) updateRows(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	id, _ := errs.Path("dataset_id", r.PathValue("dataset_id")).UUID(4)
	edits := readEdits(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, g, version, err := h.editable(r, id)
	if err != nil {
		return err
	}
	changes, err := columnEdits(edits, g.Dataset.ColumnNames)
	if err != nil {
		return err
	}
	d, err := store.UpdateDatasetRows(r.Context(), h.Table, c.OrgID, id, version, changes, c.UserID, h.Stamp())
	var missing *store.DatasetRowsNotFoundError
	switch {
	case errors.As(err, &missing):
		return rowsNotFound(edits, missing.RowIDs)
	case errors.Is(err, store.ErrTooLarge):
		return validate.Single(validate.ValueError([]any{"body", "edits"}, nil,
			"the edited rows together are larger than one update can write; send fewer edits per request"))
	case err != nil:
		return contentError(err)
	}
	return h.writeDataset(r.Context(), w, c, d, g.Role)
}

func readEdits(errs *validate.Errors, raw any, present bool) []rowEdit {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return nil
	}
	items, _ := o.Get("edits").Required().List(validate.MinLen(1), validate.MaxLen(store.MaxDatasetRowEdits))
	edits := make([]rowEdit, 0, len(items))
	seen := map[string]bool{}
	for _, item := range items {
		e, ok := item.Object()
		if !ok {
			continue
		}
		if e.Has("edit_type") {
			e.Get("edit_type").Literal("update_row")
		}
		idValue := e.Get("row_id").Required()
		rid, ok := idValue.String(validate.MinLen(1))
		if ok && seen[rid] {
			idValue.Fail("the row is edited twice in this request")
		}
		seen[rid] = true
		edit := rowEdit{rowID: rid, loc: idValue.Loc()}
		vals, ok := e.Get("values").Required().Dict()
		if !ok {
			edits = append(edits, edit)
			continue
		}
		for _, name := range vals.Keys() {
			v := vals.Get(name)
			if val, ok := readValue(v); ok {
				edit.values = append(edit.values, namedValue{name: name, value: val, loc: v.Loc(), raw: v.Raw()})
			}
		}
		edits = append(edits, edit)
	}
	return edits
}

// columnEdits places the values of each edit in the dataset's columns; a name that is no
// column is a 422 at that value.
func columnEdits(edits []rowEdit, columns []string) ([]store.DatasetRowEdit, error) {
	errs := validate.New()
	out := make([]store.DatasetRowEdit, len(edits))
	for i, e := range edits {
		out[i] = store.DatasetRowEdit{RowID: e.rowID, Values: make(map[int]any, len(e.values))}
		for _, v := range e.values {
			col := slices.Index(columns, v.name)
			if col < 0 {
				errs.Add(validate.ValueError(v.loc, v.raw, fmt.Sprintf("the dataset has no column '%s'", v.name)))
				continue
			}
			out[i].Values[col] = v.value
		}
	}
	return out, errs.Err()
}

// rowsNotFound is the 422 of edits naming rows the dataset does not have.
func rowsNotFound(edits []rowEdit, ids []string) error {
	errs := validate.New()
	for _, e := range edits {
		if slices.Contains(ids, e.rowID) {
			errs.Add(validate.ValueError(e.loc, e.rowID, "the dataset has no row with this row_id"))
		}
	}
	return errs
}
