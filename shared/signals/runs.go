package signals

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// runView is a signals run as the API shows it.
type runView struct {
	ID              string           `json:"id"`
	ConfigurationID string           `json:"configuration_id"`
	ProjectID       string           `json:"project_id"`
	RunID           string           `json:"run_id"`
	Trigger         string           `json:"trigger"`
	ScheduledTime   *time.Time       `json:"scheduled_time"`
	State           string           `json:"state"`
	Model           string           `json:"model"`
	WindowStart     *time.Time       `json:"window_start"`
	WindowEnd       *time.Time       `json:"window_end"`
	TracesInWindow  int64            `json:"traces_in_window"`
	TracesRead      int64            `json:"traces_read"`
	Truncated       bool             `json:"truncated"`
	InputTokens     int64            `json:"input_tokens"`
	OutputTokens    int64            `json:"output_tokens"`
	NewCount        int64            `json:"new_count"`
	RecurringCount  int64            `json:"recurring_count"`
	ResolvedCount   int64            `json:"resolved_count"`
	Resolved        []store.Resolved `json:"resolved"`
	FindingIDs      []string         `json:"finding_ids"`
	PreviousRunID   *string          `json:"previous_run_id"`
	ErrorType       *string          `json:"error_type"`
	ErrorMessage    *string          `json:"error_message"`
	CreatedAt       time.Time        `json:"created_at"`
	StartedAt       *time.Time       `json:"started_at"`
	FinishedAt      *time.Time       `json:"finished_at"`
	Findings        []findingView    `json:"findings,omitempty"` // reading one run
}

// findingView is a finding as the API shows it.
type findingView struct {
	ID              string     `json:"id"`
	SignalsRunID    string     `json:"signals_run_id"`
	ConfigurationID string     `json:"configuration_id"`
	ProjectID       string     `json:"project_id"`
	RunID           string     `json:"run_id"`
	Kind            string     `json:"kind"`
	Title           string     `json:"title"`
	Description     string     `json:"description"`
	Severity        string     `json:"severity"`
	TraceIDs        []string   `json:"trace_ids"`
	SuggestedAction string     `json:"suggested_action"`
	Change          string     `json:"change"`
	FirstSeenRunID  string     `json:"first_seen_run_id"`
	Acknowledged    bool       `json:"acknowledged"`
	AcknowledgedAt  *time.Time `json:"acknowledged_at"`
	AcknowledgedBy  *string    `json:"acknowledged_by"`
	CreatedAt       time.Time  `json:"created_at"`
}

func orNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func runOut(r store.SignalsRun) runView {
	v := runView{ID: r.ID, ConfigurationID: r.ConfigurationID, ProjectID: r.ProjectID, RunID: r.RunID, Trigger: r.Trigger,
		ScheduledTime: r.ScheduledTime, State: r.State, Model: r.Model, WindowStart: r.WindowStart, WindowEnd: r.WindowEnd,
		TracesInWindow: r.TracesInWindow, TracesRead: r.TracesRead, Truncated: r.Truncated, InputTokens: r.InputTokens,
		OutputTokens: r.OutputTokens, NewCount: r.NewCount, RecurringCount: r.RecurringCount, ResolvedCount: int64(len(r.Resolved)),
		Resolved: r.Resolved, FindingIDs: r.FindingIDs, PreviousRunID: orNil(r.PreviousRunID), ErrorType: orNil(r.ErrorType),
		ErrorMessage: orNil(r.ErrorMessage), CreatedAt: r.CreatedAt, StartedAt: r.StartedAt, FinishedAt: r.FinishedAt}
	if v.Resolved == nil {
		v.Resolved = []store.Resolved{}
	}
	if v.FindingIDs == nil {
		v.FindingIDs = []string{}
	}
	return v
}

func findingOut(f store.SignalsFinding) findingView {
	ids := f.TraceIDs
	if ids == nil {
		ids = []string{}
	}
	return findingView{ID: f.ID, SignalsRunID: f.SignalsRunID, ConfigurationID: f.ConfigurationID, ProjectID: f.ProjectID,
		RunID: f.RunID, Kind: f.Kind, Title: f.Title, Description: f.Description, Severity: f.Severity, TraceIDs: ids,
		SuggestedAction: f.SuggestedAction, Change: f.Change, FirstSeenRunID: f.FirstSeenRunID, Acknowledged: f.Acknowledged,
		AcknowledgedAt: f.AcknowledgedAt, AcknowledgedBy: orNil(f.AcknowledgedBy), CreatedAt: f.CreatedAt}
}

// startRun is POST .../signals/runs: an on-demand run of the configuration, now. It answers
// 202 with the run, queued; 409 while another run of the configuration is in progress.
func (h *handlers) startRun(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, readPath)
	if err != nil {
		return err
	}
	c, projectID, runID := call.Caller, call.In.projectID, call.In.runID
	ctx := r.Context()
	cfg, err := store.GetSignalsConfig(ctx, h.Table, c.OrgID, projectID, runID)
	if errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Signals configuration")
	}
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	if h.Start == nil {
		return httpapi.Unavailable("Signals runs cannot be started on this host")
	}
	run, err := h.runner.Queue(ctx, cfg, c.UserID)
	if errors.Is(err, store.ErrSignalsBusy) {
		return httpapi.Conflict("A signals run of this configuration is in progress; retry when it has finished")
	}
	if err != nil {
		return err
	}
	if err := h.Start.Start(ctx, Job{OrgID: run.OrgID, ProjectID: run.ProjectID, RunID: run.RunID, SignalsRunID: run.ID}); err != nil {
		if aerr := h.runner.Abandon(ctx, run, err); aerr != nil {
			h.Log.ErrorContext(ctx, "signals: abandoning a run failed", "signals_run_id", run.ID, "error", aerr.Error())
		}
		return httpapi.Unavailable("The signals run could not be started; retry")
	}
	httpapi.WriteJSON(w, http.StatusAccepted, map[string]any{"data": runOut(run)})
	return nil
}

// readPathOf is the opening of the routes of one signals record (base.Open): the path of
// the run and the record's id, extra. The run is not read: the record read next carries
// its organization and project, which the handler compares. Every role may read.
func readPathOf(r *http.Request, extra string) (base.Call[runRef], error) {
	return base.Open(r, base.Opening{}, func(in *base.Input) runRef { return readRunPath(in, extra) })
}

// listRuns is GET .../signals/runs: the run's signals runs, newest first, paginated.
func (h *handlers) listRuns(w http.ResponseWriter, r *http.Request) error {
	return listPage(h, w, r, "runs", store.ListSignalsRuns, runOut)
}

// listFindings is GET .../signals/findings: the run's findings, newest first, paginated.
func (h *handlers) listFindings(w http.ResponseWriter, r *http.Request) error {
	return listPage(h, w, r, "findings", store.ListSignalsFindings, findingOut)
}

// listPage answers a page of one of a run's lists: list reads it, view shapes each item, and
// the page goes out under key.
func listPage[T, V any](h *handlers, w http.ResponseWriter, r *http.Request, key string,
	list func(context.Context, store.Table, string, int, int) ([]T, bool, error), view func(T) V) error {
	type pageIn struct {
		ref          runRef
		start, limit int
	}
	call, err := base.Open(r, base.Opening{}, func(in *base.Input) (x pageIn) {
		// The query before the path, and the path only when the query is right: a bad
		// query is answered alone (as it always was; FastAPI would list both).
		if x.start, x.limit = in.Page(); in.Errs.Len() == 0 {
			x.ref = readPath(in)
		}
		return x
	})
	if err != nil {
		return err
	}
	// The run must be one of the caller's organization under the path's project.
	c, runID, start, limit := call.Caller, call.In.ref.runID, call.In.start, call.In.limit
	if _, err := store.GetRun(r.Context(), h.Table, c.OrgID, call.In.ref.projectID, runID); errors.Is(err, store.ErrNotFound) {
		return httpapi.NotFound("Run")
	} else if err != nil {
		return err
	}
	items, more, err := list(r.Context(), h.Table, runID, start, limit)
	if err != nil {
		return err
	}
	out := make([]V, len(items))
	for i, it := range items {
		out[i] = view(it)
	}
	writePage(w, start, limit, more, len(out), key, out)
	return nil
}

func writePage(w http.ResponseWriter, start, limit int, more bool, n int, key string, items any) {
	var next *int
	if more {
		v := start + n
		next = &v
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"starting_token": start, "limit": limit,
		"paginated": more, "next_starting_token": next, key: items})
}

// getRun is GET .../signals/runs/{signals_run_id}: one run with its findings.
func (h *handlers) getRun(w http.ResponseWriter, r *http.Request) error {
	call, err := readPathOf(r, "signals_run_id")
	if err != nil {
		return err
	}
	orgID, projectID, runID, ids, ctx := call.Caller.OrgID, call.In.projectID, call.In.runID, call.In.ids, r.Context()
	run, err := store.GetSignalsRun(ctx, h.Table, orgID, runID, ids[0])
	if errors.Is(err, store.ErrNotFound) || (err == nil && run.ProjectID != projectID) {
		return httpapi.NotFound("Signals run")
	}
	if err != nil {
		return err
	}
	fs, err := store.SignalsFindings(ctx, h.Table, runID, run.FindingIDs)
	if err != nil {
		return err
	}
	v := runOut(run)
	v.Findings = make([]findingView, len(fs))
	for i, f := range fs {
		v.Findings[i] = findingOut(f)
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"data": v})
	return nil
}

// acknowledge is POST .../signals/findings/{finding_id}/acknowledge: the finding is marked
// acknowledged (again: unchanged). An acknowledged finding is not notified when it recurs.
func (h *handlers) acknowledge(w http.ResponseWriter, r *http.Request) error {
	call, err := readPathOf(r, "finding_id")
	if err != nil {
		return err
	}
	c, projectID, runID, ids, ctx := call.Caller, call.In.projectID, call.In.runID, call.In.ids, r.Context()
	f, err := store.GetSignalsFinding(ctx, h.Table, c.OrgID, runID, ids[0])
	if errors.Is(err, store.ErrNotFound) || (err == nil && f.ProjectID != projectID) {
		return httpapi.NotFound("Signals finding")
	}
	if err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	f, err = store.AcknowledgeSignalsFinding(ctx, h.Table, f, c.UserID, h.Stamp())
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, map[string]any{"data": findingOut(f)})
	return nil
}
