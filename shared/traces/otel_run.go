package traces

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces/otlp"
)

// The run an OTLP export logs to: the `project` header with `logstream` or `experimentid`
// (each a name or an id), as the original's client sends them; without a project header,
// the same names as resource attributes (otelRunAttrs). A project or log stream named there
// that does not exist is created when the caller may write (exporters drop data on a 4xx);
// an experiment is never created (it needs its dataset and settings). No log stream named:
// the project's log stream "default".

// otelDefaultLogStream is the log stream of an export that names none.
const otelDefaultLogStream = "default"

// errNoProject refuses the spans of a resource that names no project (and a request
// without the header): the other resources' spans are taken.
var errNoProject = httpapi.Forbidden("No project named: send the project header (a project name or id) or the galileo.project resource attribute")

// isUUID reports whether ref is written as an id: such a reference is never created as a
// name, so an id of another organization's record answers as an unknown one does (404).
func isUUID(ref string) bool {
	_, err := uuid.Parse(ref)
	return err == nil && len(ref) == 36
}

// otelTarget names a run: a project and a log stream or an experiment, by name or id.
type otelTarget struct {
	project, logStream, experiment string
}

// otelRunAttrs are the resource attributes read when the request has no project header.
var otelRunAttrs = struct{ project, logStream, experiment []string }{
	project:    []string{"galileo.project", "project"},
	logStream:  []string{"galileo.logstream", "logstream"},
	experiment: []string{"galileo.experimentid", "galileo.experiment_id", "experimentid"},
}

// headerTarget is the target the headers name; ok is false without a project header.
func headerTarget(r *http.Request) (otelTarget, bool) {
	t := otelTarget{project: strings.TrimSpace(r.Header.Get("project")),
		logStream:  strings.TrimSpace(r.Header.Get("logstream")),
		experiment: strings.TrimSpace(r.Header.Get("experimentid"))}
	return t, t.project != ""
}

// resourceTarget is the target a resource's attributes name.
func resourceTarget(res []otlp.KeyValue) otelTarget {
	pick := func(keys []string) string {
		for _, k := range keys {
			for _, kv := range res {
				if kv.Key == k && kv.Value.Kind == otlp.KindString {
					return strings.TrimSpace(kv.Value.Str)
				}
			}
		}
		return ""
	}
	return otelTarget{project: pick(otelRunAttrs.project), logStream: pick(otelRunAttrs.logStream),
		experiment: pick(otelRunAttrs.experiment)}
}

// otelRun finds (or creates) the run of target.
func (h *handlers) otelRun(ctx context.Context, c auth.Caller, t otelTarget) (store.Project, store.Run, error) {
	if t.project == "" {
		return store.Project{}, store.Run{}, errNoProject
	}
	p, runs, err := h.otelProject(ctx, c, t.project)
	if err != nil {
		return store.Project{}, store.Run{}, err
	}
	kind, name := store.RunLogStream, t.logStream
	if t.experiment != "" {
		kind, name = store.RunExperiment, t.experiment
	} else if name == "" {
		name = otelDefaultLogStream
	}
	// The project's partition read holds its runs: ingestion needs no more of them than
	// their ids and kinds.
	runOf := func(id, name string) store.Run {
		return store.Run{ID: id, ProjectID: p.ID, OrgID: c.OrgID, Name: name, Kind: kind}
	}
	if run, ok := findRunInfo(runs, kind, name); ok {
		return p, runOf(run.ID, run.Name), nil
	}
	if kind == store.RunExperiment || isUUID(name) {
		if kind == store.RunLogStream {
			return store.Project{}, store.Run{}, httpapi.NotFound("Log stream")
		}
		return store.Project{}, store.Run{}, httpapi.NotFound("Experiment")
	}
	if !c.CanWrite() {
		return store.Project{}, store.Run{}, httpapi.Forbidden(fmt.Sprintf("Log stream %q does not exist in project %q and read-only users cannot create it", name, p.Name))
	}
	now := h.Stamp()
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: p.ID, OrgID: c.OrgID, Name: name, CreatedBy: c.UserID,
		CreatedAt: now, UpdatedAt: now}
	err = store.CreateLogStream(ctx, h.Table, ls)
	if errors.Is(err, store.ErrNameTaken) { // a concurrent export created it
		_, runs, err = store.ProjectRuns(ctx, h.Table, c.OrgID, p.ID)
		if err != nil {
			return store.Project{}, store.Run{}, err
		}
		run, ok := findRunInfo(runs, kind, name)
		if !ok {
			return store.Project{}, store.Run{}, httpapi.Conflict(fmt.Sprintf("Log stream %q is being created; retry", name))
		}
		ls.ID = run.ID
	} else if err != nil {
		return store.Project{}, store.Run{}, err
	}
	return p, runOf(ls.ID, name), nil
}

// findRunInfo finds a run of kind by id or name.
func findRunInfo(runs []store.RunInfo, kind, ref string) (store.RunInfo, bool) {
	for _, byID := range []bool{true, false} {
		for _, r := range runs {
			if r.Kind == kind && ((byID && r.ID == ref) || (!byID && r.Name == ref)) {
				return r, true
			}
		}
	}
	return store.RunInfo{}, false
}

// otelProject finds the project ref names (an id, else a name), creating it by name when
// it does not exist and the caller may write.
func (h *handlers) otelProject(ctx context.Context, c auth.Caller, ref string) (store.Project, []store.RunInfo, error) {
	if isUUID(ref) {
		p, runs, err := store.ProjectRuns(ctx, h.Table, c.OrgID, ref)
		if errors.Is(err, store.ErrNotFound) {
			return store.Project{}, nil, httpapi.NotFound("Project")
		}
		return p, runs, err
	}
	p, runs, err := store.ProjectByName(ctx, h.Table, c.OrgID, ref)
	if !errors.Is(err, store.ErrNotFound) {
		return p, runs, err
	}
	if !c.CanWrite() {
		return store.Project{}, nil, httpapi.Forbidden(fmt.Sprintf("Project %q does not exist and read-only users cannot create projects", ref))
	}
	now := h.Stamp()
	p = store.Project{ID: uuid.NewString(), OrgID: c.OrgID, Name: ref, Type: store.DefaultProjectType, CreatedBy: c.UserID,
		CreatedAt: now, UpdatedAt: now}
	err = store.CreateProject(ctx, h.Table, p)
	if errors.Is(err, store.ErrNameTaken) { // a concurrent export created it
		return store.ProjectByName(ctx, h.Table, c.OrgID, ref)
	}
	return p, nil, err
}
