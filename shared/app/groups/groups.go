// Package groups is the one table of the service's operation groups: which routes each
// Lambda function serves. functions/<name>/main.go starts its group's Register,
// infra/local mounts them all on one router and infra/invoke finds one by name, so the
// three hosts cannot disagree on what a function serves.
//
// The table sits in its own package because of the import direction: app is imported by
// everything that needs Deps, so it cannot import the groups; this package imports app and
// every group, and only the hosts import it. It is also where groups are given what they
// need of each other (a lookup of one group's records for another), since group packages
// do not import each other. A group takes app.Deps, or its own Deps struct filled here.
package groups

import (
	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/experiments"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/integrations"
	"github.com/evalobs/evalapi/shared/projects"
	"github.com/evalobs/evalapi/shared/scorers"
	"github.com/evalobs/evalapi/shared/signals"
	"github.com/evalobs/evalapi/shared/traces"
)

// All returns every group, in the order of the functions in template.yaml. Every group
// also answers the healthcheck, which app.NewRouter registers.
func All() []app.Group {
	return []app.Group{
		{Name: "auth", Register: Auth},
		{Name: "integrations", Register: Integrations},
		{Name: "datasets", Register: Datasets},
		{Name: "scorers", Register: Scorers},
		{Name: "experiments", Register: Experiments},
		{Name: "signals", Register: Signals},
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

// Auth serves login, tokens, users, API keys and groups (shared/auth).
func Auth(rt *httpapi.Router, d app.Deps) { d.Auth.Register(rt) }

// Integrations serves the model-provider integrations and their sharing.
func Integrations(rt *httpapi.Router, d app.Deps) {
	integrations.Register(rt, integrations.Deps{Table: d.Table, Secrets: d.Secrets, Authenticate: d.Auth.Authenticate,
		Now: d.Now, Log: d.Log, Discoverer: &integrations.Discoverer{AllowPrivate: d.Config.AllowPrivateProviderEndpoints}})
}

// Datasets serves datasets, their content and sharing.
func Datasets(rt *httpapi.Router, d app.Deps) {
	datasets.Register(rt, datasets.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now, Log: d.Log})
}

// Scorers serves scorers and their versions, projects, log streams, metric settings,
// metrics search and the trace column catalog (one function, as in template.yaml).
func Scorers(rt *httpapi.Router, d app.Deps) {
	scorers.Register(rt, scorers.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now})
	projects.Register(rt, projects.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now,
		ExperimentSettings: experiments.Settings(d.Table)})
	traces.Register(rt, traces.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now})
}

// Experiments serves the experiments of a project.
func Experiments(rt *httpapi.Router, d app.Deps) {
	experiments.Register(rt, experiments.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now})
}

// Signals serves the signals configuration of a run.
func Signals(rt *httpapi.Router, d app.Deps) {
	signals.Register(rt, signals.Deps{Table: d.Table, Authenticate: d.Auth.Authenticate, Now: d.Now})
}
