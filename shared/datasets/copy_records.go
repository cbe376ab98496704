package datasets

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/payload"
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
		for col, v := range map[string]any{"input": cellOf(tr.Input), output: cellOf(tr.Output), "metadata": metadataValue(tr.Metadata)} {
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

// copiedRecord is what a copy takes of a trace or span.
type copiedRecord struct {
	Input, Output store.Content
	Metadata      map[string]string
}

// findTraces reads the traces and spans of ids in the project by id (GSI1, one query each,
// at most copyConcurrency at once), their large contents resolved from the payload store.
// An id that is no record of the project is missing from the answer.
func (h *handlers) findTraces(ctx context.Context, c auth.Caller, projectID string, ids []string) (map[string]copiedRecord, error) {
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return nil, err
	}
	found := make([]*copiedRecord, len(ids))
	errs := make([]error, len(ids))
	sem := make(chan struct{}, copyConcurrency)
	var wg sync.WaitGroup
	for i, id := range ids {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			found[i], errs[i] = h.readRecord(ctx, c.OrgID, projectID, id)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	out := map[string]copiedRecord{}
	for i, rec := range found {
		if rec != nil {
			out[ids[i]] = *rec
		}
	}
	return out, nil
}

// copyConcurrency bounds the record reads of one copy.
const copyConcurrency = 8

// readRecord reads one trace or span of the project; nil when there is none.
func (h *handlers) readRecord(ctx context.Context, orgID, projectID, id string) (*copiedRecord, error) {
	it, err := store.RecordItem(ctx, h.Table, orgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var content store.RecordContent
	var rec copiedRecord
	switch it[store.AttrEntity] {
	case store.EntityTrace:
		var tr store.Trace
		if err := store.DecodeTrace(it, &tr); err != nil {
			return nil, err
		}
		if tr.ProjectID != projectID {
			return nil, nil
		}
		if err := store.DecodeTraceContent(it, &tr); err != nil {
			return nil, err
		}
		content, rec.Metadata = tr.RecordContent, tr.Metadata
	case store.EntitySpan:
		var sp store.Span
		if err := store.DecodeSpan(it, &sp, true); err != nil {
			return nil, err
		}
		if sp.ProjectID != projectID {
			return nil, nil
		}
		content, rec.Metadata = sp.RecordContent, sp.Metadata
	default:
		return nil, nil
	}
	if err := payload.Resolve(ctx, h.Payloads, &content); err != nil {
		return nil, err
	}
	rec.Input, rec.Output = content.Input, content.Output
	return &rec, nil
}

// cellOf is a dataset cell of a record's content: a text as itself, any other JSON value
// (a list of messages, an object) as its JSON text, nothing as null.
func cellOf(c store.Content) any {
	if c.IsNull() {
		return nil
	}
	return c.Text()
}
