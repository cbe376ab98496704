package datasets

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// copy_record_data: traces of a project of the caller's organization become rows of the
// dataset, prepended (the default) or appended, in the order their ids are given. A trace
// fills the dataset's columns input, output (or generated_output, with
// use_generated_output_column) and metadata, those of them the dataset has. Traces are found
// by scanning the project's runs: the records of a project are not indexed by id.

// recordCopy is a validated copy_record_data edit.
type recordCopy struct {
	projectID string
	ids       []string
	idsLoc    []any
	prepend   bool
	generated bool
}

func readRecordCopy(o validate.Obj) *recordCopy {
	c := &recordCopy{prepend: true}
	c.projectID, _ = o.Get("project_id").Nullable().UUID(4)
	o.Get("queue_id").Nullable().UUID(4)
	ids := o.Get("ids").Required()
	c.idsLoc = ids.Loc()
	if items, ok := ids.List(validate.MinLen(1), validate.MaxLen(store.MaxDatasetRowEdits)); ok {
		for _, it := range items {
			id, _ := it.UUID(4)
			c.ids = append(c.ids, id)
		}
	}
	if o.Has("prepend") {
		c.prepend, _ = o.Get("prepend").Bool()
	}
	c.generated, _ = o.Get("use_generated_output_column").Bool()
	if c.projectID == "" {
		o.Get("project_id").Fail("project_id is required: the records to copy are traces of a project")
	}
	return c
}

// copiedRows finds the traces e names and makes them row edits of a dataset of columns.
func (h *handlers) copiedRows(ctx context.Context, c auth.Caller, e edit, columns []string) ([]store.DatasetEdit, error) {
	cp := e.copy
	if _, err := h.Project(ctx, c, cp.projectID); err != nil {
		return nil, err
	}
	output := "output"
	if cp.generated {
		output = "generated_output"
	}
	if !slices.Contains(columns, "input") && !slices.Contains(columns, output) && !slices.Contains(columns, "metadata") {
		return nil, validate.Single(validate.ValueError(e.loc, nil,
			"the dataset has none of the columns input, "+output+" and metadata that records are copied into"))
	}
	found, err := h.findTraces(ctx, c, cp.projectID, cp.ids)
	if err != nil {
		return nil, err
	}
	errs := validate.New()
	kind := store.EditAppendRow
	if cp.prepend {
		kind = store.EditPrependRow
	}
	var out []store.DatasetEdit
	for i, id := range cp.ids {
		tr, ok := found[id]
		if !ok {
			errs.Add(validate.ValueError(validate.At(cp.idsLoc, i), id, "the project has no record with this id"))
			continue
		}
		values := map[string]any{}
		for col, v := range map[string]any{"input": tr.Input, output: tr.Output, "metadata": metadataValue(tr.Metadata)} {
			if slices.Contains(columns, col) {
				values[col] = v
			}
		}
		out = append(out, store.DatasetEdit{Kind: kind, RowID: uuid.NewString(), Values: values})
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	if cp.prepend { // each prepended row goes first: reverse, so that they keep the ids' order
		slices.Reverse(out)
	}
	return out, nil
}

func metadataValue(m map[string]string) any {
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// errFound stops a scan once every trace looked for is found.
var errFound = errors.New("found")

// findTraces scans the runs of a project for the traces of ids.
func (h *handlers) findTraces(ctx context.Context, c auth.Caller, projectID string, ids []string) (map[string]store.Trace, error) {
	_, runs, err := store.ProjectRuns(ctx, h.Table, c.OrgID, projectID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, httpapi.NotFound("Project")
	}
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	found := map[string]store.Trace{}
	for _, run := range runs {
		err := store.ScanTraces(ctx, h.Table, run.ID, time.Unix(0, 0), time.Now().Add(24*time.Hour), func(tr *store.Trace) error {
			if want[tr.ID] && tr.OrgID == c.OrgID {
				found[tr.ID] = *tr
				if len(found) == len(want) {
					return errFound
				}
			}
			return nil
		})
		if errors.Is(err, errFound) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return found, nil
}
