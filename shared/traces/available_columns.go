package traces

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

type columnsResponse struct {
	Columns []columns.Column `json:"columns"`
}

// readColumnsRun reads the body of operation 11: exactly one of log_stream_id and
// experiment_id.
func readColumnsRun(errs *validate.Errors, raw any, present bool) runRef {
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return runRef{}
	}
	var ref runRef
	sent := 0
	before := errs.Len()
	for _, field := range []string{"log_stream_id", "experiment_id"} {
		v := o.Get(field)
		if !v.Present() || v.IsNull() {
			continue
		}
		sent++
		if id, ok := v.UUID(4); ok {
			ref = runRef{field: field, id: id}
		}
	}
	if errs.Len() == before && sent != 1 {
		errs.Add(validate.ValueError([]any{"body"}, o.Raw(), "exactly one of log_stream_id and experiment_id is required"))
	}
	return ref
}

// availableColumns is operation 11: POST /v2/projects/{project_id}/traces/available_columns.
// It answers the standard columns, then one metric column per scorer of the run's settings,
// each marked is_empty unless the run's column summary says it holds a value. With kinds
// (spans/available_columns, sessions/available_columns) it answers the columns that apply
// to one of those record types only.
func (h *handlers) availableColumns(w http.ResponseWriter, r *http.Request) error {
	return h.columnsOf(w, r, nil)
}

// spanColumns is POST spans/available_columns: the columns of some span type.
func (h *handlers) spanColumns(w http.ResponseWriter, r *http.Request) error {
	return h.columnsOf(w, r, columns.Span)
}

// sessionColumns is POST sessions/available_columns: the columns of sessions.
func (h *handlers) sessionColumns(w http.ResponseWriter, r *http.Request) error {
	return h.columnsOf(w, r, []string{columns.TypeSession})
}

func (h *handlers) columnsOf(w http.ResponseWriter, r *http.Request, kinds []string) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readColumnsRun))
	if err != nil {
		return err
	}
	ref := call.In.Req
	settings, err := h.runSettings(r.Context(), call.Caller, call.In.ID, ref)
	if err != nil {
		return err
	}
	filled, err := store.FilledColumns(r.Context(), h.Table, ref.id)
	if err != nil {
		return err
	}
	settings.Scorers = withExternal(settings.Scorers, filled, nil) // external evaluators' metrics too
	cols := columns.ForSettings(settings).WithEmptiness(filled)
	if kinds != nil {
		cols = slices.DeleteFunc(cols, func(c columns.Column) bool {
			return !slices.ContainsFunc(c.ApplicableTypes, func(t string) bool { return slices.Contains(kinds, t) })
		})
	}
	httpapi.WriteJSON(w, http.StatusOK, columnsResponse{Columns: cols})
	return nil
}

// runSettings reads the metric settings of the run ref names with one read of the run
// itself; only when it is missing does it read the project, to answer 404 naming what is
// missing: the project (also another organization's), or the run within it.
func (h *handlers) runSettings(ctx context.Context, c auth.Caller, projectID string, ref runRef) (store.MetricSettings, error) {
	var settings store.MetricSettings
	var err error
	if ref.field == "log_stream_id" {
		var ls store.LogStream
		ls, err = store.GetLogStream(ctx, h.Table, c.OrgID, projectID, ref.id)
		settings = ls.MetricSettings
	} else {
		var e store.Experiment
		e, err = store.GetExperiment(ctx, h.Table, c.OrgID, projectID, ref.id)
		settings = e.MetricSettings
	}
	if !errors.Is(err, store.ErrNotFound) {
		return settings, err
	}
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return store.MetricSettings{}, err
	}
	return store.MetricSettings{}, httpapi.NotFound(runFieldResource[ref.field])
}
