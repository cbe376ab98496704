package experiments

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/collection"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// POST /v2/render_template renders a template with the experiments' engine (exprun.Render:
// {{name}} placeholders, spaces allowed inside the braces; a string value as it is, null as
// empty, anything else as its JSON text) for each input of a page: the input strings sent,
// or the rows of a dataset version. A variable an input does not define is a 422 naming it.

// maxRenderInputs bounds the input strings of one request.
const maxRenderInputs = 1000

// renderIn is a validated render request.
type renderIn struct {
	start, limit int
	template     string
	strings      []string // StringData
	stringsLoc   []any
	datasetID    string // DatasetData
	version      *int64 // nil: the current version
}

func readRender(in *base.Input) (x renderIn) {
	x.start, x.limit = in.Page()
	o, ok := in.Body().Required().Object()
	if !ok {
		return x
	}
	x.template, _ = o.Get("template").Required().String(validate.MinLen(1))
	data := o.Get("data").Required()
	d, ok := data.Object()
	if !ok {
		return x
	}
	switch {
	case d.Has("input_strings"):
		v := d.Get("input_strings")
		x.stringsLoc = v.Loc()
		items, _ := v.List(validate.MaxLen(maxRenderInputs))
		for _, it := range items {
			s, _ := it.String()
			x.strings = append(x.strings, s)
		}
	case d.Has("dataset_id"):
		x.datasetID, _ = d.Get("dataset_id").UUID(4)
		if n, ok := d.Get("dataset_version_index").Nullable().Int(validate.Ge(0)); ok && d.Get("dataset_version_index").Raw() != nil {
			x.version = &n
		}
	default:
		data.Fail("data is either {\"input_strings\": [...]} or {\"dataset_id\": ..., \"dataset_version_index\": ...}")
	}
	return x
}

type renderedTemplate struct {
	Result  string  `json:"result"`
	Warning *string `json:"warning"`
}

// renderTemplate is POST /v2/render_template?starting_token=&limit=.
func (h *handlers) renderTemplate(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, readRender)
	if err != nil {
		return err
	}
	in, ctx := call.In, r.Context()
	msgs := []store.PromptMessage{{Role: "user", Content: in.template}}
	var inputs []map[string]any
	var next *int
	if in.datasetID != "" {
		inputs, next, err = h.datasetInputs(ctx, call.Caller.OrgID, call.Caller.UserID, call.Caller.IsAdmin(), in, msgs)
	} else {
		inputs, next, err = stringInputs(in, msgs)
	}
	if err != nil {
		return err
	}
	out := make([]renderedTemplate, len(inputs))
	for i, vars := range inputs {
		out[i] = renderedTemplate{Result: exprun.Render(msgs, vars)[0].Content}
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": in.start, "limit": in.limit,
		"paginated": next != nil, "next_starting_token": next, "rendered_templates": out})
	return nil
}

// stringInputs are the variables of the page's input strings: a string that is a JSON
// object defines its keys; any other string is the variable `input`. Every string (not only
// the page's) must define every variable.
func stringInputs(in renderIn, msgs []store.PromptMessage) ([]map[string]any, *int, error) {
	all := make([]map[string]any, len(in.strings))
	names := exprun.Variables(msgs)
	errs := validate.New()
	for i, s := range in.strings {
		vars := map[string]any{"input": s}
		if raw, err := validate.ParseJSON([]byte(s)); err == nil {
			if m, ok := raw.(map[string]any); ok {
				vars = m
			}
		}
		if missing := missingIn(names, vars); len(missing) > 0 {
			errs.Add(validate.ValueError(validate.At(in.stringsLoc, i), s, fmt.Sprintf(
				"the template's variables %s are not defined by this input", quoteAll(missing))))
		}
		all[i] = vars
	}
	if err := errs.Err(); err != nil {
		return nil, nil, err
	}
	page, next := collection.Page(all, in.start, in.limit)
	return page, next, nil
}

func missingIn(names []string, vars map[string]any) []string {
	var out []string
	for _, v := range names {
		if _, ok := vars[v]; !ok {
			out = append(out, v)
		}
	}
	return out
}

// datasetInputs are the rows of the page of the dataset version, by column; the caller
// must have a role on the dataset (or administer the organization), and every variable
// must be a column.
func (h *handlers) datasetInputs(ctx context.Context, orgID, userID string, admin bool, in renderIn, msgs []store.PromptMessage) ([]map[string]any, *int, error) {
	g, err := store.DatasetGrantOf(ctx, h.Table, orgID, userID, in.datasetID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && g.Role == "" && !admin) {
		return nil, nil, httpapi.NotFound("Dataset")
	}
	if err != nil {
		return nil, nil, err
	}
	d := g.Dataset
	var st store.ContentState
	// Version 0, as null, is the current version (as an experiment's dataset version_index).
	if in.version == nil || *in.version == 0 || *in.version == d.Version {
		st, err = store.CurrentState(ctx, h.Table, d)
	} else {
		_, st, err = store.GetDatasetVersion(ctx, h.Table, d, *in.version)
		if errors.Is(err, store.ErrNotFound) {
			return nil, nil, validate.Single(validate.ValueError([]any{"body", "data", "dataset_version_index"}, *in.version,
				fmt.Sprintf("the dataset has no version %d", *in.version)))
		}
	}
	if err != nil {
		return nil, nil, err
	}
	cols := st.ColumnNames()
	if missing := exprun.MissingVariables(msgs, cols); len(missing) > 0 {
		return nil, nil, validate.Single(validate.ValueError([]any{"body", "template"}, in.template, fmt.Sprintf(
			"the template's variables %s are not columns of the dataset (columns: %s)", quoteAll(missing), strings.Join(cols, ", "))))
	}
	n := st.RowCount()
	lo, hi := min(int64(in.start), n), min(int64(in.start)+int64(in.limit), n)
	var out []map[string]any
	for row, err := range store.ContentRows(ctx, h.Table, st, lo, hi) {
		if err != nil {
			return nil, nil, err
		}
		vars := make(map[string]any, len(cols))
		for i, c := range cols {
			if i < len(row.Values) {
				vars[c] = row.Values[i]
			}
		}
		out = append(out, vars)
	}
	var next *int
	if hi < n {
		nx := int(hi)
		next = &nx
	}
	return out, next, nil
}

// quoteAll quotes each name and joins them: 'a', 'b'.
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}
