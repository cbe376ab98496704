// Package experiments serves the experiments of a project: creating one (beyond the
// specification, to get experiments in) and listing them with their metrics and rank
// (operation 12); running them (start, jobs, cancel, retry, compare: shared/exprun does the
// work) and the prompt templates, of a project (/projects/{project_id}/templates) or found
// by id (the original client's global /templates routes), and their rendering. An experiment's counts and metric statistics come from its run summary,
// which the writers of traces keep current, so listing never reads traces.
package experiments

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	// Runs starts and retries jobs (its Queue sends the chunks); nil: a start answers 503.
	Runs *exprun.Service
}

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	d.Deps = d.Deps.WithDefaults("experiments")
	h := &handlers{Deps: d}
	rt.Handle("POST /v2/projects/{project_id}/experiments", h.create, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/experiments", h.list, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/experiments/compare", h.compare, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/experiments/{experiment_id}/start", h.start, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}", h.getJob, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}/cancel", h.cancelJob, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}/retry", h.retryJob, d.Authenticate)
	rt.Handle("POST /v2/jobs", h.createJob, d.Authenticate)
	rt.Handle("GET /v2/jobs/{job_id}", h.getAnyJob, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/runs/{run_id}/jobs", h.runJobs, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/templates", h.createTemplate, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/templates", h.listTemplates, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/templates/versions", h.versionByName, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/templates/{template_id}", h.getTemplate, d.Authenticate)
	rt.Handle("DELETE /v2/projects/{project_id}/templates/{template_id}", h.deleteTemplate, d.Authenticate)
	rt.Handle("POST /v2/projects/{project_id}/templates/{template_id}/versions", h.addTemplateVersion, d.Authenticate)
	rt.Handle("GET /v2/projects/{project_id}/templates/{template_id}/versions/{version}", h.getTemplateVersion, d.Authenticate)
	rt.Handle("PUT /v2/projects/{project_id}/templates/{template_id}/versions/{version}", h.selectTemplateVersion, d.Authenticate)
	// The global template routes of the original's client (templates_global*.go).
	rt.Handle("POST /v2/templates", h.createGlobalTemplate, d.Authenticate)
	rt.Handle("POST /v2/templates/query", h.queryTemplates, d.Authenticate)
	rt.Handle("DELETE /v2/templates/bulk_delete", h.bulkDeleteTemplates, d.Authenticate)
	rt.Handle("GET /v2/templates/{template_id}", h.getGlobalTemplate, d.Authenticate)
	rt.Handle("PATCH /v2/templates/{template_id}", h.patchTemplate, d.Authenticate)
	rt.Handle("DELETE /v2/templates/{template_id}", h.deleteGlobalTemplate, d.Authenticate)
	rt.Handle("POST /v2/templates/{template_id}/versions", h.addGlobalVersion, d.Authenticate)
	rt.Handle("POST /v2/templates/{template_id}/versions/query", h.queryVersions, d.Authenticate)
	rt.Handle("GET /v2/templates/{template_id}/versions/{version}", h.getGlobalVersion, d.Authenticate)
	rt.Handle("PUT /v2/templates/{template_id}/versions/{version}", h.selectGlobalVersion, d.Authenticate)
	rt.Handle("POST /v2/templates/{template_id}/users", h.addUsers, d.Authenticate)
	rt.Handle("GET /v2/templates/{template_id}/users", h.listUsers, d.Authenticate)
	rt.Handle("PATCH /v2/templates/{template_id}/users/{user_id}", h.updateUser, d.Authenticate)
	rt.Handle("DELETE /v2/templates/{template_id}/users/{user_id}", h.removeUser, d.Authenticate)
	rt.Handle("POST /v2/templates/{template_id}/groups", h.addGroups, d.Authenticate)
	rt.Handle("GET /v2/templates/{template_id}/groups", h.listGroups, d.Authenticate)
	rt.Handle("PATCH /v2/templates/{template_id}/groups/{group_id}", h.updateGroup, d.Authenticate)
	rt.Handle("DELETE /v2/templates/{template_id}/groups/{group_id}", h.removeGroup, d.Authenticate)
	rt.Handle("POST /v2/render_template", h.renderTemplate, d.Authenticate)
}

type handlers struct{ Deps }
