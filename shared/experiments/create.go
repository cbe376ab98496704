package experiments

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// create is POST /v2/projects/{project_id}/experiments. A dataset reference must name a
// dataset of the caller's organization; its name is the dataset's unless the body gives
// one. The answer is the new experiment as operation 12 lists it (no trace yet).
func (h *handlers) create(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true}, base.ByID("project_id", 4, readCreate))
	if err != nil {
		return err
	}
	c, projectID, req, ctx := call.Caller, call.In.ID, call.In.Req, r.Context()
	if _, err := h.Project(ctx, c, projectID); err != nil {
		return err
	}
	if err := auth.RequireWrite(ctx); err != nil {
		return err
	}
	e := req.exp
	if e.Dataset != nil {
		// The caller must be able to read the dataset (a role on it, or organization admin):
		// else it is not found, and its name is not disclosed.
		g, err := store.DatasetGrantOf(ctx, h.Table, c.OrgID, c.UserID, e.Dataset.DatasetID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && g.Role == "" && !c.IsAdmin()) {
			return httpapi.NotFound("Dataset")
		}
		if err != nil {
			return err
		}
		if e.Dataset.Name == "" {
			e.Dataset.Name = g.Dataset.Name
		}
	}
	now := h.Stamp()
	e.ID, e.ProjectID, e.OrgID, e.CreatedBy, e.CreatedAt, e.UpdatedAt = uuid.NewString(), projectID, c.OrgID, c.UserID, now, now
	if err := h.resolvePrompt(ctx, &e, req.inline); err != nil {
		return err
	}
	// trigger runs the experiment when it names something to run (a dataset or a prompt);
	// the original's clients also send it on experiments whose traces they log themselves.
	run := e.Trigger && (e.Dataset != nil || len(e.PromptMessages) > 0)
	if run || (e.Dataset != nil && len(e.PromptMessages) > 0) {
		// The variables against the dataset's columns, the row bound: checked at creation,
		// and everything a start needs when the experiment starts now.
		var p *exprun.Problem
		if _, _, err := exprun.Plan(ctx, h.Table, e, e.PromptMessages); errors.As(err, &p) && (run || !p.NoModel) {
			return validate.Single(validate.ValueError(p.Loc, nil, p.Msg))
		} else if err != nil && !errors.As(err, &p) {
			return err
		}
	}
	if e.Group != nil && e.Group.ID == "" {
		e.Group.ID = store.DerivedID(projectID, "experiment group", e.Group.Name)
	}
	switch err := store.CreateExperiment(ctx, h.Table, e); {
	case errors.Is(err, store.ErrNameTaken):
		return validate.Single(validate.ValueError([]any{"body", "name"}, e.Name,
			fmt.Sprintf("an experiment named '%s' already exists", e.Name)))
	case errors.Is(err, store.ErrNotFound):
		return httpapi.NotFound("Project")
	case errors.Is(err, store.ErrTooLarge):
		return validate.Single(validate.ValueError([]any{"body"}, nil, "the experiment is larger than a record can hold"))
	case err != nil:
		return err
	}
	var job *store.ExperimentJob
	if run {
		j, err := h.startJob(ctx, c, e, req.budget)
		if err != nil {
			return err // the experiment stays; POST .../start runs it
		}
		job, e.JobID = &j, j.ID
	}
	creator := &store.User{ID: c.UserID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName}
	httpapi.WriteJSON(w, http.StatusOK, experimentOut(e, store.RunSummary{}, creator, rankResult{}, false, job))
	return nil
}

// resolvePrompt finds the prompt the experiment runs: the template version named by
// prompt_template_version_id, else the version of the prompt object's template, else the
// inline prompt_template. It fills e.Prompt (as operation 12 shows it) and e.PromptMessages.
// A reference to no template is kept as sent unless the experiment starts now (404).
func (h *handlers) resolvePrompt(ctx context.Context, e *store.Experiment, inline *templateVersionIn) error {
	var p store.PromptTemplate
	var v store.PromptTemplateVersion
	var err error
	switch {
	case e.PromptTemplateVersionID != nil:
		p, v, err = store.PromptTemplateByVersionID(ctx, h.Table, e.OrgID, e.ProjectID, *e.PromptTemplateVersionID)
	case e.Prompt != nil:
		p, err = store.GetPromptTemplate(ctx, h.Table, e.OrgID, e.ProjectID, e.Prompt.PromptTemplateID)
		if err == nil {
			v, err = store.GetPromptTemplateVersion(ctx, h.Table, p.ID, e.Prompt.VersionIndex)
		}
	case inline != nil:
		e.PromptMessages = PromptMessages(inline.template)
		return nil
	default:
		return nil
	}
	if errors.Is(err, store.ErrNotFound) {
		if !e.Trigger || e.Dataset == nil {
			return nil // kept as sent: an experiment whose client logs its traces itself
		}
		return httpapi.NotFound("Prompt template version")
	}
	if err != nil {
		return err
	}
	e.Prompt = &store.ExperimentPrompt{PromptTemplateID: p.ID, VersionIndex: v.Version, Name: p.Name, Content: templateText(v.Template)}
	e.PromptMessages = PromptMessages(v.Template)
	if e.PromptRunSettings == nil && len(v.Settings) > 0 {
		e.PromptRunSettings = v.Settings // the version's settings, unless the experiment sets its own
	}
	return nil
}
