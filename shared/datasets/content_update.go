package datasets

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// PATCH /v2/datasets/{dataset_id}/content: the original's UpdateDatasetContentRequest, a list
// of edits discriminated by edit_type, applied in order as the next content version, and
// answered 204 (the original's clients accept nothing else) with the new version's ETag.

// editTypes are the kinds of edit, in the original's order.
var editTypes = []string{"prepend_row", "append_row", "update_row", "delete_row", "filter_rows",
	"copy_record_data", "remove_column", "rename_column"}

// edit is one edit that passed validation of its shape, with where it stood.
type edit struct {
	store.DatasetEdit
	loc    []any       // of the edit
	copy   *recordCopy // copy_record_data
	values []namedValue
}

// namedValue is a value that passed validation, with its column name and where it stood.
type namedValue struct {
	name  string
	value any
	loc   []any
	raw   any
}

// readEdits reads {"edits": [...]} (1 to store.MaxDatasetRowEdits). An edit without
// edit_type is an update_row, as the service's first clients sent them.
func readEdits(errs *validate.Errors, raw any, present bool) []edit {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return nil
	}
	items, _ := o.Get("edits").Required().List(validate.MinLen(1), validate.MaxLen(store.MaxDatasetRowEdits))
	out := make([]edit, 0, len(items))
	for _, item := range items {
		e, ok := item.Object()
		if !ok {
			continue
		}
		tag := "update_row"
		if e.Has("edit_type") {
			tag = validate.PyStr(e.Get("edit_type").Raw())
			if _, isString := e.Get("edit_type").Raw().(string); !isString || !slices.Contains(editTypes, tag) {
				item.Add(validate.UnionTagInvalid(item.Loc(), item.Raw(), "edit_type", tag, editTypes))
				continue
			}
		}
		if ed, ok := validate.Tagged(item, tag, func(v validate.Value) (edit, bool) { return readEdit(v, tag) }); ok {
			ed.loc = validate.At(item.Loc(), tag)
			out = append(out, ed)
		}
	}
	return out
}

func readEdit(v validate.Value, tag string) (edit, bool) {
	o, _ := v.Object()
	e := edit{DatasetEdit: store.DatasetEdit{Kind: tag}}
	switch tag {
	case "prepend_row", "append_row":
		if id, ok := o.Get("row_id").Nullable().UUID(4); ok {
			e.RowID = id
		} else {
			e.RowID = uuid.NewString()
		}
		e.values = readValues(o.Get("values").Required())
	case "update_row":
		e.RowID, _ = o.Get("row_id").Required().String(validate.MinLen(1))
		e.values = readValues(o.Get("values").Required())
	case "delete_row":
		e.RowID, _ = o.Get("row_id").Required().String(validate.MinLen(1))
	case "filter_rows":
		if items, ok := o.Get("row_ids").Required().List(); ok {
			for _, it := range items {
				id, _ := it.String(validate.MinLen(1))
				e.RowIDs = append(e.RowIDs, id)
			}
		}
	case "remove_column":
		e.Column, _ = o.Get("column_name").Required().String(validate.MinLen(1))
	case "rename_column":
		e.Column, _ = o.Get("column_name").Required().String(validate.MinLen(1))
		e.NewColumn, _ = o.Get("new_column_name").Required().String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	case "copy_record_data":
		e.copy = readRecordCopy(o)
	}
	return e, true
}

// readValues reads the values of a row edit: column name to value.
func readValues(v validate.Value) []namedValue {
	vals, ok := v.Dict()
	if !ok {
		return nil
	}
	var out []namedValue
	for _, name := range vals.Keys() {
		e := vals.Get(name)
		if val, ok := readValue(e); ok {
			out = append(out, namedValue{name: name, value: val, loc: e.Loc(), raw: e.Raw()})
		}
	}
	return out
}

// updateContent is PATCH /v2/datasets/{dataset_id}/content.
func (h *handlers) updateContent(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, onDataset(readEdits))
	if err != nil {
		return err
	}
	c, id, edits := call.Caller, call.In.ID, call.In.Req
	g, version, err := h.editable(r, c, id)
	if err != nil {
		return err
	}
	var out []store.DatasetEdit
	var where [][]any // the loc of each store edit's origin
	for _, e := range edits {
		if e.copy != nil {
			rows, err := h.copiedRows(r.Context(), c, e, g.Dataset.ColumnNames)
			if err != nil {
				return err
			}
			for range rows {
				where = append(where, e.loc)
			}
			out = append(out, rows...)
			continue
		}
		e.Values = make(map[string]any, len(e.values))
		for _, v := range e.values {
			e.Values[v.name] = v.value
		}
		out, where = append(out, e.DatasetEdit), append(where, e.loc)
	}
	if len(out) == 0 { // copies of no record
		w.Header().Set("ETag", etag(g.Dataset.Version))
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	d, err := store.EditDataset(r.Context(), h.Table, c.OrgID, id, version, out, c.UserID, h.Stamp())
	if err := editError(err, out, where); err != nil {
		return err
	}
	w.Header().Set("ETag", etag(d.Version))
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// editError turns the refusals of an edit into answers: a 422 at the edit (and the value)
// at fault, else contentError's.
func editError(err error, edits []store.DatasetEdit, where [][]any) error {
	var missing *store.DatasetRowsNotFoundError
	var bad *store.DatasetEditError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &missing):
		errs := validate.New()
		for i, e := range edits {
			for _, id := range append([]string{e.RowID}, e.RowIDs...) {
				if slices.Contains(missing.RowIDs, id) {
					field := "row_id"
					if e.Kind == store.EditFilterRows {
						field = "row_ids"
					}
					errs.Add(validate.ValueError(validate.At(where[i], field), id, "the dataset has no row with this row_id"))
				}
			}
		}
		return errs
	case errors.As(err, &bad):
		loc := validate.At(where[bad.Edit], bad.Field)
		if bad.Key != "" {
			loc = validate.At(loc, bad.Key)
		}
		return validate.Single(validate.ValueError(loc, nil, bad.Msg))
	case errors.Is(err, store.ErrInvalid):
		return validate.Single(validate.ValueError([]any{"body", "edits"}, nil,
			fmt.Sprintf("the dataset would hold more than %d rows", store.MaxDatasetRows)))
	}
	return contentError(err)
}

// replaceIn is what a replacement of a dataset's content asks: the content of version
// srcVersion of dataset srcID (this one, or another).
type replaceIn struct {
	id, srcID    string
	srcVersion   int64
	namesDataset bool // the body's dataset_id is not null
}

// replaceContent is PUT /v2/datasets/{dataset_id}/content: the original's RollbackRequest
// ({"rollback_version": n}, this dataset's version n) or UpsertDatasetContentRequest
// ({"dataset_id", "version_index"}: a version, the current one when null, of a dataset the
// caller may read, this one or another) becomes the content, as the next version; 204.
func (h *handlers) replaceContent(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, func(in *base.Input) (x replaceIn) {
		x.id, _ = in.Path("dataset_id").UUID(4)
		if o, ok := in.Body().Required().Object(); ok {
			x.namesDataset = o.Raw()["dataset_id"] != nil
			if o.Has("rollback_version") || !o.Has("dataset_id") {
				x.srcID = x.id
				x.srcVersion, _ = o.Get("rollback_version").Required().Int(validate.Ge(1))
			} else {
				x.srcID, _ = o.Get("dataset_id").Required().UUID(4)
				x.srcVersion, _ = o.Get("version_index").Nullable().Int(validate.Ge(1))
			}
		}
		return x
	})
	if err != nil {
		return err
	}
	c, id, srcID, srcVersion := call.Caller, call.In.id, call.In.srcID, call.In.srcVersion
	g, version, err := h.editable(r, c, id)
	if err != nil {
		return err
	}
	src := g.Dataset
	if srcID != id {
		sg, err := h.grant(r.Context(), c, srcID)
		if err != nil {
			return err
		}
		src = sg.Dataset
	}
	if srcVersion == 0 {
		srcVersion = src.Version
	}
	_, st, err := store.GetDatasetVersion(r.Context(), h.Table, src, srcVersion)
	if errors.Is(err, store.ErrNotFound) {
		field := "rollback_version"
		if srcID != id || call.In.namesDataset {
			field = "version_index"
		}
		return validate.Single(validate.ValueError([]any{"body", field}, srcVersion, "the dataset has no such version"))
	}
	if err != nil {
		return err
	}
	d, err := store.ReplaceDatasetContent(r.Context(), h.Table, c.OrgID, id, version, st, c.UserID, h.Stamp())
	if err != nil {
		return contentError(err)
	}
	w.Header().Set("ETag", etag(d.Version))
	w.WriteHeader(http.StatusNoContent)
	return nil
}
