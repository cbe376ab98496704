package datasets

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"path"
	"strings"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
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

// newDataset is a validated create: its fields, and its content (rows, or the version of
// another dataset to copy).
type newDataset struct {
	name        string
	columns     []string
	rows        [][]any
	projectID   string
	draft       bool
	hidden      bool
	suffix      bool // append_suffix_if_duplicate
	copyFrom    string
	copyVersion int64
}

// readJSONCreate reads the JSON body of POST /v2/datasets: name, column_names, rows (lists
// in column order or objects of column names), project_id, draft, hidden.
func readJSONCreate(r *http.Request) (newDataset, error) {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return newDataset{}, err
	}
	errs := validate.New()
	// The operation's query parameters hold whatever the body (FastAPI validates every declared
	// parameter, query before body): `format` names a file's format, which a JSON body has
	// none of; `hidden` is the default of the body's own.
	q := r.URL.Query()
	errs.Query(q, "format").Enum(uploadFormats...)
	hidden, _ := errs.Query(q, "hidden").Bool()
	nd := newDataset{hidden: hidden}
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
	nd.draft, _ = o.Get("draft").Bool()
	if h, ok := o.Get("hidden").Bool(); ok {
		nd.hidden = h
	}
	nd.suffix, _ = o.Get("append_suffix_if_duplicate").Bool()
	return nd, errs.Err()
}

// readFormCreate reads the original's multipart create (Body_create_dataset_datasets_post):
// file (with the format of the query's `format`, else of its name), name (else the file's
// name), draft, hidden, append_suffix_if_duplicate, copy_from_dataset_id (and
// copy_from_dataset_version_index) instead of a file, project_id, column_mapping (accepted,
// not kept). Form fields are validated at ["body", field], as FastAPI reports them.
func readFormCreate(r *http.Request) (newDataset, error) {
	errs := validate.New()
	q := r.URL.Query()
	format, _ := errs.Query(q, "format").Enum(uploadFormats...)
	hidden, _ := errs.Query(q, "hidden").Bool()
	form, err := httpapi.ReadForm(r, maxUpload)
	if err != nil {
		return newDataset{}, err
	}
	fields := make(map[string]any, len(form.Values))
	for k, v := range form.Values {
		fields[k] = v
	}
	o, _ := errs.Body(fields, true).Object()
	nd := newDataset{hidden: hidden}
	nd.name, _ = o.Get("name").String(validate.MinLen(1), validate.MaxLen(maxNameLen))
	nd.draft, _ = o.Get("draft").Bool()
	if h, ok := o.Get("hidden").Bool(); ok {
		nd.hidden = h
	}
	nd.suffix, _ = o.Get("append_suffix_if_duplicate").Bool()
	nd.projectID, _ = o.Get("project_id").UUID(4)
	nd.copyFrom, _ = o.Get("copy_from_dataset_id").UUID(4)
	nd.copyVersion, _ = o.Get("copy_from_dataset_version_index").Int(validate.Ge(1))
	o.Get("column_mapping").String()
	file, hasFile := form.Files["file"]
	switch {
	case hasFile && nd.copyFrom != "":
		errs.Add(validate.ValueError([]any{"body", "copy_from_dataset_id"}, nd.copyFrom, "send a file or copy_from_dataset_id, not both"))
	case !hasFile && nd.copyFrom == "":
		errs.Add(validate.Missing([]any{"body", "file"}, nil))
	}
	if err := errs.Err(); err != nil || !hasFile {
		return nd, err
	}
	if nd.name == "" {
		nd.name = strings.TrimSuffix(path.Base(file.Filename), path.Ext(file.Filename))
		if nd.name == "" || nd.name == "." || len([]rune(nd.name)) > maxNameLen {
			nd.name = "Dataset"
		}
	}
	kind := formatOf(format, file.Filename)
	parsed, err := parseFile(kind, file.Data)
	if err == nil {
		err = parsed.rowsFit(2)
	}
	var fe *fileError
	switch {
	case errors.As(err, &fe):
		return nd, validate.Single(validate.ValueError([]any{"body", "file"}, file.Filename,
			fmt.Sprintf("the %s file does not parse at line %d: %s", kind, fe.line, fe.msg)))
	case err != nil:
		return nd, validate.Single(validate.ValueError([]any{"body", "file"}, file.Filename, err.Error()))
	}
	nd.columns, nd.rows = parsed.columns, parsed.rows
	return nd, nil
}

// isForm reports whether the request carries a form body.
func isForm(r *http.Request) bool {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	return mt == "multipart/form-data" || mt == "application/x-www-form-urlencoded"
}

// create is POST /v2/datasets: a dataset owned by the caller, from JSON (columns and rows)
// or from the original's multipart form (an uploaded file, or a copy of another dataset's
// version).
func (h *handlers) create(w http.ResponseWriter, r *http.Request) error {
	read := readJSONCreate
	if isForm(r) {
		read = readFormCreate
	}
	nd, err := read(r)
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
		if _, err := h.Project(ctx, c, nd.projectID); err != nil {
			return err
		}
	}
	rows := newRows(nd.rows)
	if nd.copyFrom != "" {
		if nd.columns, rows, err = h.copyOf(ctx, c, nd); err != nil {
			return err
		}
		if nd.name == "" {
			return validate.Single(validate.Missing([]any{"body", "name"}, nil))
		}
	}
	if nd.suffix {
		if nd.name, err = h.freeName(ctx, c, nd.name, ""); err != nil {
			return err
		}
	}
	now := h.Stamp()
	d := store.Dataset{ID: uuid.NewString(), OrgID: c.OrgID, ProjectID: nd.projectID, Name: nd.name,
		ColumnNames: nd.columns, Draft: nd.draft, Hidden: nd.hidden, CreatedBy: c.UserID, CreatedAt: now}
	owner := store.DatasetCollaborator{ID: uuid.NewString(), DatasetID: d.ID, OrgID: c.OrgID, UserID: c.UserID,
		Role: store.DatasetOwner, CreatedBy: c.UserID, CreatedAt: now}
	d, err = store.CreateDataset(ctx, h.Table, d, owner, rows)
	if errors.Is(err, store.ErrInvalid) {
		return validate.Single(validate.ValueError([]any{"body"}, nil, fmt.Sprintf("a dataset holds at most %d rows", store.MaxDatasetRows)))
	}
	if err != nil {
		return err
	}
	return h.writeDataset(ctx, w, c, d, roleOf(c, store.DatasetOwner))
}

// copyOf reads the rows of the version of a dataset the caller may read that a create
// copies (its current version unless told), with their columns; the copies get new row
// ids.
func (h *handlers) copyOf(ctx context.Context, c auth.Caller, nd newDataset) ([]string, []store.NewDatasetRow, error) {
	g, err := h.grant(ctx, c, nd.copyFrom)
	if err != nil {
		return nil, nil, err
	}
	v := nd.copyVersion
	if v == 0 {
		v = g.Dataset.Version
	}
	_, st, err := store.GetDatasetVersion(ctx, h.Table, g.Dataset, v)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, validate.Single(validate.ValueError([]any{"body", "copy_from_dataset_version_index"}, v, "the dataset has no such version"))
	}
	if err != nil {
		return nil, nil, err
	}
	var rows []store.NewDatasetRow
	for row, err := range store.ContentRows(ctx, h.Table, st, 0, st.RowCount()) {
		if err != nil {
			return nil, nil, err
		}
		rows = append(rows, store.NewDatasetRow{RowID: uuid.NewString(), Values: row.Values})
	}
	return st.ColumnNames(), rows, nil
}

// freeName is name, or, when another dataset of the organization (not skip) has it, the
// first of "name (1)", "name (2)"... that none has.
func (h *handlers) freeName(ctx context.Context, c auth.Caller, name, skip string) (string, error) {
	all, err := store.ListOrgDatasets(ctx, h.Table, c.OrgID)
	if err != nil {
		return "", err
	}
	taken := map[string]bool{}
	for _, d := range all {
		if d.ID != skip {
			taken[d.Name] = true
		}
	}
	for i, candidate := 1, name; ; i++ {
		if !taken[candidate] {
			return candidate, nil
		}
		candidate = fmt.Sprintf("%s (%d)", name, i)
	}
}

// newRows gives each row of values a new row id.
func newRows(rows [][]any) []store.NewDatasetRow {
	out := make([]store.NewDatasetRow, len(rows))
	for i, values := range rows {
		out[i] = store.NewDatasetRow{RowID: uuid.NewString(), Values: values}
	}
	return out
}
