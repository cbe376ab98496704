// Package groups is the one table of the service's operation groups: which routes each
// Lambda function serves. functions/<name>/main.go starts its group's Register,
// infra/local mounts them all on one router and infra/invoke finds one by name, so the
// three hosts cannot disagree on what a function serves.
//
// The table sits in its own package because of the import direction: app is imported by
// the hosts and tests that need Deps, and app imports no group; this package imports app
// and every group, and only the hosts import it. It is also where a group is handed what
// it needs of another, since group packages do not import each other.
package groups

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/docs"
	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/experiments"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/identity"
	"github.com/evalobs/evalapi/shared/integrations"
	"github.com/evalobs/evalapi/shared/projects"
	"github.com/evalobs/evalapi/shared/scorers"
	"github.com/evalobs/evalapi/shared/signals"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/traces"
)

// All returns every group, in the order of the functions in template.yaml, with the path
// roots its function answers (app.OwnerOf): the one table of which function serves which
// paths. Every group also answers the healthcheck, which app.NewRouter registers and API
// Gateway routes to the identity function.
func All() []app.Group {
	return []app.Group{
		{Name: "identity", Register: Identity, Roots: []string{"/healthcheck", "/login", "/logout",
			"/refresh_token", "/current_user", "/users", "/api_keys", "/groups"}},
		{Name: "integrations", Register: Integrations, Roots: []string{"/integrations"}},
		{Name: "datasets", Register: Datasets, Roots: []string{"/datasets"}},
		{Name: "scorers", Register: Scorers, Roots: []string{"/scorers"}},
		{Name: "projects", Register: Projects, Roots: []string{"/projects", "/projects/{project_id}/runs/{run_id}/scorer-settings"}},
		{Name: "traces", Register: Traces, Roots: []string{"/projects/{project_id}/traces",
			"/projects/{project_id}/metrics", "/projects/{project_id}/spans", "/projects/{project_id}/sessions",
			"/projects/{project_id}/export_records"}},
		{Name: "otel", Register: Otel, Roots: []string{"/otel", "/v1/traces"}},
		{Name: "experiments", Register: Experiments, Roots: []string{"/projects/{project_id}/experiments",
			"/projects/{project_id}/templates", "/templates", "/render_template", "/jobs", "/projects/{project_id}/runs/{run_id}/jobs"}},
		{Name: "signals", Register: Signals, Roots: []string{"/projects/{project_id}/runs"}},
		{Name: "docs", Register: Docs, Roots: []string{"/docs", "/openapi.json"}},
	}
}

// Find returns the group called name.
func Find(name string) (app.Group, bool) {
	for _, g := range All() {
		if g.Name == name {
			return g, true
		}
	}
	return app.Group{}, false
}

// Names lists the names of All, for usage messages.
func Names() []string {
	var names []string
	for _, g := range All() {
		names = append(names, g.Name)
	}
	return names
}

// Identity serves login, the refresh exchange, users, API keys and groups.
func Identity(rt *httpapi.Router, d app.Deps) {
	identity.Register(rt, identity.Deps{Deps: d.Base(), Auth: d.Auth})
}

// Integrations serves the model-provider integrations and their sharing.
func Integrations(rt *httpapi.Router, d app.Deps) {
	integrations.Register(rt, integrations.Deps{Deps: d.Base(), Secrets: d.Secrets,
		Discoverer: &integrations.Discoverer{AllowPrivate: d.Config.AllowPrivateProviderEndpoints}})
}

// Datasets serves datasets, their content and sharing.
func Datasets(rt *httpapi.Router, d app.Deps) {
	datasets.Register(rt, datasets.Deps{Deps: d.Base(), Payloads: d.Payloads,
		Segments: store.NewSegmentCache(store.DefaultSegmentCacheBytes),
		Pages:    datasets.NewPageCache(datasets.DefaultPageCacheBytes)})
}

// Scorers serves scorers and their versions.
func Scorers(rt *httpapi.Router, d app.Deps) { scorers.Register(rt, scorers.Deps{Deps: d.Base()}) }

// Projects serves projects, their log streams and the log streams' metric settings.
func Projects(rt *httpapi.Router, d app.Deps) {
	projects.Register(rt, projects.Deps{Deps: d.Base(), Prices: newJudgePrices(d)})
}

// Traces serves the observability family: trace ingestion, the trace column catalog and
// the metrics search.
func Traces(rt *httpapi.Router, d app.Deps) {
	traces.Register(rt, traces.Deps{Deps: d.Base(), Payloads: d.Payloads, ExportLimit: d.Config.ResponseLimit})
}

// Otel serves OTLP/HTTP trace ingestion into the observability records (a function of its
// own: the decoder and the conventions' mapping would take the traces function past the
// bootstrap size cap).
func Otel(rt *httpapi.Router, d app.Deps) {
	traces.RegisterOTLP(rt, traces.Deps{Deps: d.Base(), Payloads: d.Payloads})
}

// Experiments serves the experiments of a project.
func Experiments(rt *httpapi.Router, d app.Deps) {
	experiments.Register(rt, experiments.Deps{Deps: d.Base(),
		Runs: &exprun.Service{Table: d.Table, Queue: d.ExperimentQueue, Now: d.Now}})
}

// Signals serves the signals configuration of a run, its on-demand runs, runs and findings.
// A webhook URL follows the SSRF rules of provider endpoints (egress.CheckEndpoint).
func Signals(rt *httpapi.Router, d app.Deps) {
	sd := signals.Deps{Deps: d.Base(), Secrets: d.Secrets, CheckWebhookURL: func(u string) error {
		_, err := egress.CheckEndpoint(u, d.Config.AllowPrivateProviderEndpoints)
		return err
	}}
	if d.Signals.StartWorker != nil {
		sd.Start = signals.StartFunc(d.Signals.StartWorker)
	}
	if d.Signals.Schedules != nil {
		sd.Schedules = d.Signals.Schedules
	}
	signals.Register(rt, sd)
}

// Docs serves the OpenAPI document as JSON and the API page, without credentials. Only
// functions/docs calls it, so only its binary carries the page's assets.
func Docs(rt *httpapi.Router, _ app.Deps) { docs.Register(rt) }
