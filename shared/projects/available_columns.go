package projects

import (
	"errors"
	"net/http"

	"github.com/evalobs/evalapi/shared/columns"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

type columnsResponse struct {
	Columns []columns.Column `json:"columns"`
}

// runRef names the run whose columns are asked for: a log stream or an experiment.
type runRef struct {
	logStreamID, experimentID string
}

// readRunRef reads the body of operation 11: exactly one of log_stream_id and experiment_id.
func readRunRef(errs *validate.Errors, raw any, present bool) runRef {
	var ref runRef
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return ref
	}
	sent := func(name string) bool { return o.Get(name).Present() && !o.Get(name).IsNull() }
	before := errs.Len()
	if id := optUUID(o, "log_stream_id"); id != nil {
		ref.logStreamID = *id
	}
	if id := optUUID(o, "experiment_id"); id != nil {
		ref.experimentID = *id
	}
	if errs.Len() == before && sent("log_stream_id") == sent("experiment_id") {
		errs.Add(validate.ValueError([]any{"body"}, o.Raw(), "exactly one of log_stream_id and experiment_id is required"))
	}
	return ref
}

// availableColumns is operation 11: POST /v2/projects/{project_id}/traces/available_columns.
// It answers the standard columns, then one metric column per scorer of the run's settings,
// each marked is_empty unless the run's column summary says it holds a value.
func (h *handlers) availableColumns(w http.ResponseWriter, r *http.Request) error {
	raw, present, err := httpapi.DecodeBody(r, 0)
	if err != nil {
		return err
	}
	errs := validate.New()
	projectID, _ := errs.Path("project_id", r.PathValue("project_id")).UUID(4)
	ref := readRunRef(errs, raw, present)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := callerOf(r)
	if err != nil {
		return err
	}
	var settings store.MetricSettings
	runID := ref.logStreamID
	if runID != "" {
		ls, err := h.findLogStream(r.Context(), c, projectID, runID)
		if err != nil {
			return err
		}
		settings = ls.MetricSettings
	} else {
		runID = ref.experimentID
		if _, err := h.findProject(r.Context(), c, projectID); err != nil {
			return err
		}
		if h.ExperimentSettings == nil {
			return httpapi.NotFound("Experiment")
		}
		settings, err = h.ExperimentSettings(r.Context(), c.OrgID, projectID, runID)
		if errors.Is(err, store.ErrNotFound) {
			return httpapi.NotFound("Experiment")
		}
		if err != nil {
			return err
		}
	}
	filled, err := store.FilledColumns(r.Context(), h.Table, runID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, columnsResponse{Columns: columns.ForSettings(settings).WithEmptiness(filled)})
	return nil
}
