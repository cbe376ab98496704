// Package tenancy_test is the cross-tenant matrix (issue 9, part 3): two organizations with
// the same kinds of data behind the real router, and for every operation that names a record
// (in its path or body), organization A's admin naming B's record gets a 404 (a
// failed_deletions entry for the bulk delete) and changes nothing; and for every writing
// operation, A's read-only user gets a 403 and changes nothing. "Nothing" is checked on the
// whole table: every item ever written is read back before and after each request and must
// be byte-identical. The list of operations is the router's own, so a new route without an
// entry here fails the test.
package tenancy_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/evalobs/evalapi/shared/auth/authtest"
)

// req is one request of a probe: a path and a JSON body ("" for none).
type req struct{ path, body string }

// entry says how an operation is probed. cross builds requests of A's admin that name B's
// records; write builds a writing request of A's read-only user on A's own records. A nil
// builder needs a reason in note.
type entry struct {
	cross []func(a, b *tenant) req
	write func(a *tenant) req
	note  string
}

func x(f ...func(a, b *tenant) req) []func(a, b *tenant) req { return f }

const traceBody = `{"log_stream_id":%q,"traces":[{"created_at":"2026-01-01T00:40:00Z","name":"n","input":"i","output":"o"}]}`

const spansBody = `{"log_stream_id":%q,"trace_id":%q,"parent_id":%q,"spans":[{"type":"tool","name":"t","input":"i"}]}`

// matrix is every operation of the API, by route.
var matrix = map[string]entry{
	"GET /v2/healthcheck":         {note: "no record, no write, no credentials"},
	"GET /v2/openapi.json":        {note: "the API's description: no record, no write, no credentials"},
	"GET /v2/docs":                {note: "the API page: no record, no write, no credentials"},
	"GET /v2/docs/rapidoc-min.js": {note: "the API page's script: no record, no write, no credentials"},
	"POST /login":                 {note: "unauthenticated: exchanges credentials, names no record"},
	"POST /login/api_key":         {note: "unauthenticated: exchanges an API key, names no record"},
	"POST /v2/refresh_token":      {note: "exchanges the caller's own refresh cookie"},
	"GET /v2/current_user":        {note: "the caller itself"},
	"GET /v2/api_keys":            {note: "lists the caller's keys (TestListsShowOnlyTheCallersOrganization)"},
	"POST /v2/users": {note: noRecord, write: func(a *tenant) req {
		return req{"/v2/users", `{"email":"ro-made@example.com","password":"pw-0123456789ab"}`}
	}},
	"GET /v2/users/{user_id}": {cross: x(func(a, b *tenant) req { return req{"/v2/users/" + b.UserID, ""} })},
	"PATCH /v2/users/{user_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/users/" + b.UserID, `{"state":"deactivated"}`} }),
		write: func(a *tenant) req { return req{"/v2/users/" + a.Manager.UserID, `{"first_name":"ro-made"}`} },
	},
	"DELETE /v2/users/{user_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/users/" + b.UserID, ""} }),
		write: func(a *tenant) req { return req{"/v2/users/" + a.Manager.UserID, ""} },
	},
	"PUT /v2/current_user/password": {note: "the caller's own credential: a read-only user may change their password"},
	"POST /v2/logout":               {note: "ends the caller's own session"},
	"POST /v2/logout/all":           {note: "ends the caller's own sessions"},
	"POST /v2/api_keys":             {note: "a user's own credential: a read-only user may hold an API key (it carries the read-only role)"},
	"DELETE /v2/api_keys/{api_key_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/api_keys/" + b.APIKeyID, ""} }),
		note:  "revokes the caller's own key: no write to the organization's data",
	},
	"POST /v2/groups":           {note: noRecord, write: func(a *tenant) req { return req{"/v2/groups", `{"name":"ro-group"}`} }},
	"GET /v2/groups/{group_id}": {cross: x(func(a, b *tenant) req { return req{"/v2/groups/" + b.GroupID, ""} })},
	"POST /v2/groups/{group_id}/members": {
		cross: x(
			func(a, b *tenant) req { return req{"/v2/groups/" + b.GroupID + "/members", member(a.Manager.UserID)} },
			func(a, b *tenant) req { return req{"/v2/groups/" + a.GroupID + "/members", member(b.UserID)} },
		),
		write: func(a *tenant) req { return req{"/v2/groups/" + a.GroupID + "/members", member(a.Manager.UserID)} },
	},
	"PUT /v2/integrations/cloud-host": {note: noRecord, write: func(a *tenant) req {
		return req{"/v2/integrations/cloud-host", `{"token":"t","endpoint":"https://proxy.example.com","available_deployments":[{"model":"m","id":"d"}]}`}
	}},
	"PUT /v2/integrations/model-vendor": {note: noRecord, write: func(a *tenant) req { return req{"/v2/integrations/model-vendor", `{"token":"t"}`} }},
	"PUT /v2/integrations/custom": {note: noRecord, write: func(a *tenant) req {
		return req{"/v2/integrations/custom", `{"endpoint":"https://models.example.com/v1","authentication_type":"none","models":["m"]}`}
	}},
	"GET /v2/integrations":                   {note: "lists the caller's own integrations and those shared with them: names no record, writes nothing (TestIntegrationListShowsOnlyTheCallersOrganization)"},
	"GET /v2/datasets/{dataset_id}/projects": {cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/projects", ""} })},
	"POST /v2/jobs": {
		cross: x(
			func(a, b *tenant) req { return req{"/v2/jobs", playgroundJob(b.ProjectID, b.RunExperimentID)} },
			func(a, b *tenant) req { return req{"/v2/jobs", playgroundJob(a.ProjectID, b.RunExperimentID)} },
		),
		write: func(a *tenant) req { return req{"/v2/jobs", playgroundJob(a.ProjectID, a.RunExperimentID)} },
	},
	"GET /v2/jobs/{job_id}": {cross: x(func(a, b *tenant) req { return req{"/v2/jobs/" + b.JobID, ""} })},
	"GET /v2/projects/{project_id}/runs/{run_id}/jobs": {cross: x(
		func(a, b *tenant) req {
			return req{"/v2/projects/" + b.ProjectID + "/runs/" + b.RunExperimentID + "/jobs", ""}
		},
		func(a, b *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/runs/" + b.RunExperimentID + "/jobs", ""}
		},
		func(a, b *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/runs/" + b.LogStreamID + "/jobs", ""}
		},
	)},
	"GET /v2/integrations/{integration_id}": {cross: x(func(a, b *tenant) req { return req{"/v2/integrations/" + b.IntegrationID, ""} })},
	"POST /v2/integrations/{integration_id}/users": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/integrations/" + b.IntegrationID + "/users", member(a.Manager.UserID)}
			},
			func(a, b *tenant) req { return req{"/v2/integrations/" + a.IntegrationID + "/users", member(b.UserID)} },
		),
		write: func(a *tenant) req {
			return req{"/v2/integrations/" + a.IntegrationID + "/users", member(a.Manager.UserID)}
		},
	},
	"POST /v2/datasets": {note: noRecord, write: func(a *tenant) req { return req{"/v2/datasets", `{"name":"ro","column_names":["a"]}`} }},
	"DELETE /v2/datasets/bulk_delete": {
		cross: x(func(a, b *tenant) req {
			return req{"/v2/datasets/bulk_delete", fmt.Sprintf(`{"dataset_ids":[%q]}`, b.DatasetID)}
		}),
		write: func(a *tenant) req {
			return req{"/v2/datasets/bulk_delete", fmt.Sprintf(`{"dataset_ids":[%q]}`, a.DatasetID)}
		},
	},
	"GET /v2/datasets/{dataset_id}/content": {cross: x(func(a, b *tenant) req { return req{content(b), ""} })},
	"POST /v2/datasets/{dataset_id}/content": {
		cross: x(func(a, b *tenant) req { return req{content(b), `{"rows":[["x","y"]]}`} }),
		write: func(a *tenant) req { return req{content(a), `{"rows":[["x","y"]]}`} },
	},
	"PATCH /v2/datasets/{dataset_id}/content": {
		cross: x(
			func(a, b *tenant) req { return req{content(b), edit(b.RowID)} },
			func(a, b *tenant) req { return req{content(a), edit(b.RowID)} },
		),
		write: func(a *tenant) req { return req{content(a), edit(a.RowID)} },
	},
	"GET /v2/datasets":              {note: listsOwn},
	"POST /v2/datasets/query":       {note: listsOwn + "; a query: writes nothing"},
	"GET /v2/datasets/{dataset_id}": {cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID, ""} })},
	"PATCH /v2/datasets/{dataset_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID, `{"name":"taken"}`} }),
		write: func(a *tenant) req { return req{"/v2/datasets/" + a.DatasetID, `{"name":"ro-renamed"}`} },
	},
	"DELETE /v2/datasets/{dataset_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID, ""} }),
		write: func(a *tenant) req { return req{"/v2/datasets/" + a.DatasetID, ""} },
	},
	"PUT /v2/datasets/{dataset_id}/content": {
		cross: x(
			func(a, b *tenant) req { return req{content(b), `{"rollback_version":1}`} },
			func(a, b *tenant) req { return req{content(a), fmt.Sprintf(`{"dataset_id":%q}`, b.DatasetID)} },
		),
		write: func(a *tenant) req { return req{content(a), `{"rollback_version":1}`} },
	},
	"GET /v2/datasets/{dataset_id}/versions": {cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/versions", ""} })},
	"POST /v2/datasets/{dataset_id}/versions/query": {
		cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/versions/query", `{}`} }),
		note:  "a query: writes nothing",
	},
	"PATCH /v2/datasets/{dataset_id}/versions/{version_index}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/versions/1", `{"name":"x"}`} }),
		write: func(a *tenant) req { return req{"/v2/datasets/" + a.DatasetID + "/versions/1", `{"name":"ro"}`} },
	},
	"GET /v2/datasets/{dataset_id}/versions/{version_index}/content": {
		cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/versions/1/content", ""} }),
	},
	"GET /v2/datasets/{dataset_id}/groups": {cross: x(func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/groups", ""} })},
	"POST /v2/datasets/{dataset_id}/groups": {
		cross: x(
			func(a, b *tenant) req { return req{"/v2/datasets/" + b.DatasetID + "/groups", shareGroup(a.GroupID)} },
			func(a, b *tenant) req { return req{"/v2/datasets/" + a.DatasetID + "/groups", shareGroup(b.GroupID)} },
		),
		write: func(a *tenant) req { return req{"/v2/datasets/" + a.DatasetID + "/groups", shareGroup(a.GroupID)} },
	},
	"POST /v2/datasets/{dataset_id}/users": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/datasets/" + b.DatasetID + "/users", shareUser(a.Manager.UserID)}
			},
			func(a, b *tenant) req { return req{"/v2/datasets/" + a.DatasetID + "/users", shareUser(b.UserID)} },
		),
		write: func(a *tenant) req { return req{"/v2/datasets/" + a.DatasetID + "/users", shareUser(a.Manager.UserID)} },
	},
	"POST /v2/scorers": {note: noRecord, write: func(a *tenant) req { return req{"/v2/scorers", `{"name":"ro","scorer_type":"llm"}`} }},
	"POST /v2/scorers/{scorer_id}/version/decision": {
		cross: x(func(a, b *tenant) req { return req{"/v2/scorers/" + b.ScorerID + "/version/decision", decision} }),
		write: func(a *tenant) req { return req{"/v2/scorers/" + a.ScorerID + "/version/decision", decision} },
	},
	"POST /v2/scorers/{scorer_id}/version/llm": {
		cross: x(func(a, b *tenant) req { return req{"/v2/scorers/" + b.ScorerID + "/version/llm", llmVersion} }),
		write: func(a *tenant) req { return req{"/v2/scorers/" + a.ScorerID + "/version/llm", llmVersion} },
	},
	"POST /v2/scorers/{scorer_id}/version/preset": {
		cross: x(func(a, b *tenant) req { return req{"/v2/scorers/" + b.ScorerID + "/version/preset", `{}`} }),
		write: func(a *tenant) req { return req{"/v2/scorers/" + a.ScorerID + "/version/preset", `{}`} },
		note:  "the tenants' scorer is an llm scorer: the read-only probe is refused (403) before the scorer's type is checked",
	},
	"POST /v2/scorers/{scorer_id}/version/code": {
		cross: x(func(a, b *tenant) req { return req{"/v2/scorers/" + b.ScorerID + "/version/code", codeVersion} }),
		write: func(a *tenant) req { return req{"/v2/scorers/" + a.ScorerID + "/version/code", codeVersion} },
		note:  "the tenants' scorer is an llm scorer: the read-only probe is refused (403) before the scorer's type is checked",
	},
	"GET /v2/scorers/{scorer_id}/version": {cross: x(func(a, b *tenant) req { return req{"/v2/scorers/" + b.ScorerID + "/version", ""} })},
	"POST /v2/scorers/list":               {note: listsOwn + "; a query: writes nothing"},
	"POST /v2/projects":                   {note: noRecord, write: func(a *tenant) req { return req{"/v2/projects", `{"name":"ro"}`} }},
	"GET /v2/projects/{project_id}":       {cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID, ""} })},
	"GET /v2/projects":                    {note: listsOwn},
	"GET /v2/projects/all":                {note: listsOwn},
	"POST /v2/projects/paginated":         {note: listsOwn + "; a query: writes nothing"},
	"DELETE /v2/projects/{project_id}": {
		cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID, ""} }),
		write: func(a *tenant) req { return req{"/v2/projects/" + a.ProjectID, ""} },
	},
	"POST /v2/projects/{project_id}/log_streams": {
		cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/log_streams", `{"name":"x"}`} }),
		write: func(a *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/log_streams", `{"name":"x"}`} },
	},
	"GET /v2/projects/{project_id}/log_streams": {cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/log_streams", ""} })},
	"GET /v2/projects/{project_id}/log_streams/paginated": {
		cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/log_streams/paginated", ""} }),
	},
	"POST /v2/projects/{project_id}/log_streams/search": {
		cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/log_streams/search", `{}`} }),
		note:  "a query: writes nothing",
	},
	"GET /v2/projects/{project_id}/log_streams/{log_stream_id}": {
		cross: x(
			func(a, b *tenant) req { return req{logStream(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{logStream(a.ProjectID, b.LogStreamID), ""} },
		),
	},
	"PUT /v2/projects/{project_id}/log_streams/{log_stream_id}": {
		cross: x(
			func(a, b *tenant) req { return req{logStream(b.ProjectID, b.LogStreamID), `{"name":"x"}`} },
			func(a, b *tenant) req { return req{logStream(a.ProjectID, b.LogStreamID), `{"name":"x"}`} },
		),
		write: func(a *tenant) req { return req{logStream(a.ProjectID, a.LogStreamID), `{"name":"ro"}`} },
	},
	"DELETE /v2/projects/{project_id}/log_streams/{log_stream_id}": {
		cross: x(
			func(a, b *tenant) req { return req{logStream(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{logStream(a.ProjectID, b.LogStreamID), ""} },
		),
		write: func(a *tenant) req { return req{logStream(a.ProjectID, a.LogStreamID), ""} },
	},
	"GET /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings": {
		cross: x(
			func(a, b *tenant) req { return req{metricSettings(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{metricSettings(a.ProjectID, b.LogStreamID), ""} },
		),
	},
	"POST /v2/projects/{project_id}/log_streams/{log_stream_id}/evaluate": {
		cross: x(
			func(a, b *tenant) req { return req{evaluatePath(b.ProjectID, b.LogStreamID), evaluateBody(b.ScorerID)} },
			func(a, b *tenant) req { return req{evaluatePath(a.ProjectID, b.LogStreamID), evaluateBody(b.ScorerID)} },
		),
		write: func(a *tenant) req { return req{evaluatePath(a.ProjectID, a.LogStreamID), evaluateBody(a.ScorerID)} },
	},
	"GET /v2/projects/{project_id}/log_streams/{log_stream_id}/evaluate/{job_id}": {
		cross: x(
			func(a, b *tenant) req { return req{evaluatePath(b.ProjectID, b.LogStreamID) + "/" + b.ScorerID, ""} },
			func(a, b *tenant) req { return req{evaluatePath(a.ProjectID, b.LogStreamID) + "/" + b.ScorerID, ""} },
		),
	},
	"PATCH /v2/projects/{project_id}/log_streams/{log_stream_id}/metric_settings": {
		cross: x(
			func(a, b *tenant) req { return req{metricSettings(b.ProjectID, b.LogStreamID), `{"scorers":[]}`} },
			func(a, b *tenant) req {
				return req{metricSettings(a.ProjectID, a.LogStreamID), fmt.Sprintf(`{"scorers":[{"id":%q}]}`, b.ScorerID)}
			},
		),
		write: func(a *tenant) req { return req{metricSettings(a.ProjectID, a.LogStreamID), `{"scorers":[]}`} },
	},
	"GET /v2/projects/{project_id}/runs/{run_id}/scorer-settings": {
		cross: x(
			func(a, b *tenant) req { return req{scorerSettings(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{scorerSettings(a.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{scorerSettings(a.ProjectID, b.ExperimentID), ""} },
		),
	},
	"PATCH /v2/projects/{project_id}/runs/{run_id}/scorer-settings": {
		cross: x(
			func(a, b *tenant) req {
				return req{scorerSettings(b.ProjectID, b.LogStreamID), scorerSettingsBody(b.LogStreamID, "")}
			},
			func(a, b *tenant) req {
				return req{scorerSettings(a.ProjectID, b.ExperimentID), scorerSettingsBody(b.ExperimentID, "")}
			},
			func(a, b *tenant) req {
				return req{scorerSettings(a.ProjectID, a.LogStreamID), scorerSettingsBody(a.LogStreamID, b.ScorerID)}
			},
		),
		write: func(a *tenant) req {
			return req{scorerSettings(a.ProjectID, a.LogStreamID), scorerSettingsBody(a.LogStreamID, "")}
		},
	},
	"POST /v2/projects/{project_id}/runs/{run_id}/scorer-settings": {
		cross: x(
			func(a, b *tenant) req {
				return req{scorerSettings(b.ProjectID, b.LogStreamID), scorerSettingsBody(b.LogStreamID, "")}
			},
			func(a, b *tenant) req {
				return req{scorerSettings(a.ProjectID, b.ExperimentID), scorerSettingsBody(b.ExperimentID, "")}
			},
			func(a, b *tenant) req {
				return req{scorerSettings(a.ProjectID, a.LogStreamID), scorerSettingsBody(a.LogStreamID, b.ScorerID)}
			},
		),
		write: func(a *tenant) req {
			return req{scorerSettings(a.ProjectID, a.LogStreamID), scorerSettingsBody(a.LogStreamID, "")}
		},
	},
	"POST /v2/projects/{project_id}/metrics/search": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/metrics/search", search(b.LogStreamID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/metrics/search", search(b.LogStreamID)}
			},
		),
		note: "a query: writes nothing",
	},
	"POST /v2/projects/{project_id}/traces/available_columns": {
		cross: x(
			func(a, b *tenant) req {
				return req{columns(b.ProjectID), fmt.Sprintf(`{"log_stream_id":%q}`, b.LogStreamID)}
			},
			func(a, b *tenant) req {
				return req{columns(a.ProjectID), fmt.Sprintf(`{"log_stream_id":%q}`, b.LogStreamID)}
			},
		),
		note: "a query: writes nothing",
	},
	"POST /v2/projects/{project_id}/traces": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/traces", fmt.Sprintf(traceBody, b.LogStreamID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/traces", fmt.Sprintf(traceBody, b.LogStreamID)}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/traces", fmt.Sprintf(traceBody, a.LogStreamID)}
		},
	},
	"GET /v2/projects/{project_id}/traces/{trace_id}": {cross: x(
		func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/traces/" + b.TraceID, ""} },
		func(a, b *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/traces/" + b.TraceID, ""} },
	)},
	"PATCH /v2/projects/{project_id}/traces/{trace_id}": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/traces/" + b.TraceID, `{"output":"x"}`}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/traces/" + b.TraceID, `{"output":"x"}`}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/traces/" + a.TraceID, `{"output":"x"}`}
		},
	},
	"GET /v2/projects/{project_id}/spans/{span_id}": {cross: x(
		func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/spans/" + b.SpanID, ""} },
		func(a, b *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/spans/" + b.SpanID, ""} },
	)},
	"PATCH /v2/projects/{project_id}/spans/{span_id}": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/spans/" + b.SpanID, `{"output":"x"}`}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/spans/" + b.SpanID, `{"output":"x"}`}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/spans/" + a.SpanID, `{"output":"x"}`}
		},
	},
	"POST /v2/projects/{project_id}/spans": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/spans", fmt.Sprintf(spansBody, b.LogStreamID, b.TraceID, b.TraceID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/spans", fmt.Sprintf(spansBody, a.LogStreamID, b.TraceID, b.TraceID)}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/spans", fmt.Sprintf(spansBody, a.LogStreamID, a.TraceID, a.TraceID)}
		},
	},
	"POST /v2/projects/{project_id}/sessions": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/sessions", fmt.Sprintf(`{"log_stream_id":%q}`, b.LogStreamID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/sessions", fmt.Sprintf(`{"log_stream_id":%q}`, b.LogStreamID)}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/sessions", fmt.Sprintf(`{"log_stream_id":%q}`, a.LogStreamID)}
		},
	},
	"GET /v2/projects/{project_id}/sessions/{session_id}": {cross: x(
		func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/sessions/" + b.SessionID, ""} },
		func(a, b *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/sessions/" + b.SessionID, ""} },
	)},
	"POST /v2/projects/{project_id}/traces/search":              recordQuery("traces/search", ""),
	"POST /v2/projects/{project_id}/spans/search":               recordQuery("spans/search", ""),
	"POST /v2/projects/{project_id}/sessions/search":            recordQuery("sessions/search", ""),
	"POST /v2/otel/traces":                                      otelEntry("/v2/otel/traces"),
	"POST /v1/traces":                                           otelEntry("/v1/traces"),
	"POST /v2/projects/{project_id}/traces/partial_search":      recordQuery("traces/partial_search", `,"select_columns":{"column_ids":["input"]}`),
	"POST /v2/projects/{project_id}/spans/partial_search":       recordQuery("spans/partial_search", `,"select_columns":{"column_ids":["input"]}`),
	"POST /v2/projects/{project_id}/sessions/partial_search":    recordQuery("sessions/partial_search", `,"select_columns":{"include_all_metrics":true}`),
	"POST /v2/projects/{project_id}/traces/count":               recordQuery("traces/count", ""),
	"POST /v2/projects/{project_id}/spans/count":                recordQuery("spans/count", ""),
	"POST /v2/projects/{project_id}/sessions/count":             recordQuery("sessions/count", ""),
	"POST /v2/projects/{project_id}/spans/available_columns":    recordQuery("spans/available_columns", ""),
	"POST /v2/projects/{project_id}/sessions/available_columns": recordQuery("sessions/available_columns", ""),
	"POST /v2/projects/{project_id}/export_records":             recordQuery("export_records", `,"root_type":"trace"`),
	"POST /v2/projects/{project_id}/traces/delete": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/traces/delete", deleteBody(b.LogStreamID, b.TraceID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/traces/delete", deleteBody(b.LogStreamID, b.TraceID)}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/traces/delete", deleteBody(a.LogStreamID, a.TraceID)}
		},
	},
	"POST /v2/projects/{project_id}/sessions/delete": {
		cross: x(
			func(a, b *tenant) req {
				return req{"/v2/projects/" + b.ProjectID + "/sessions/delete", deleteBody(b.LogStreamID, b.SessionID)}
			},
			func(a, b *tenant) req {
				return req{"/v2/projects/" + a.ProjectID + "/sessions/delete", deleteBody(b.LogStreamID, b.SessionID)}
			},
		),
		write: func(a *tenant) req {
			return req{"/v2/projects/" + a.ProjectID + "/sessions/delete", deleteBody(a.LogStreamID, a.SessionID)}
		},
	},
	"GET /v2/projects/{project_id}/experiments": {cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/experiments", ""} })},
	"POST /v2/projects/{project_id}/experiments": {
		cross: x(func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/experiments", `{"name":"x"}`} }),
		write: func(a *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/experiments", `{"name":"x"}`} },
	},
	"POST /v2/projects/{project_id}/experiments/compare": {cross: x(
		func(a, b *tenant) req {
			return req{exps(b.ProjectID) + "/compare", compareBody(b.ExperimentID, b.RunExperimentID)}
		},
		func(a, b *tenant) req {
			return req{exps(a.ProjectID) + "/compare", compareBody(a.RunExperimentID, b.RunExperimentID)}
		},
	), note: "reads only: a read-only user may compare"},
	"POST /v2/projects/{project_id}/experiments/{experiment_id}/start": {
		cross: x(
			func(a, b *tenant) req { return req{exps(b.ProjectID) + "/" + b.ExperimentID + "/start", ""} },
			func(a, b *tenant) req { return req{exps(a.ProjectID) + "/" + b.ExperimentID + "/start", ""} },
		),
		write: func(a *tenant) req { return req{exps(a.ProjectID) + "/" + a.ExperimentID + "/start", ""} },
	},
	"GET /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}": {cross: x(
		func(a, b *tenant) req { return req{job(b.ProjectID, b.RunExperimentID, b.JobID), ""} },
		func(a, b *tenant) req { return req{job(a.ProjectID, a.RunExperimentID, b.JobID), ""} },
	)},
	"POST /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}/cancel": {
		cross: x(
			func(a, b *tenant) req { return req{job(b.ProjectID, b.RunExperimentID, b.JobID) + "/cancel", ""} },
			func(a, b *tenant) req { return req{job(a.ProjectID, a.RunExperimentID, b.JobID) + "/cancel", ""} },
		),
		write: func(a *tenant) req { return req{job(a.ProjectID, a.RunExperimentID, a.JobID) + "/cancel", ""} },
	},
	"POST /v2/projects/{project_id}/experiments/{experiment_id}/jobs/{job_id}/retry": {
		cross: x(
			func(a, b *tenant) req { return req{job(b.ProjectID, b.RunExperimentID, b.JobID) + "/retry", ""} },
			func(a, b *tenant) req { return req{job(a.ProjectID, a.RunExperimentID, b.JobID) + "/retry", ""} },
		),
		write: func(a *tenant) req { return req{job(a.ProjectID, a.RunExperimentID, a.JobID) + "/retry", ""} },
	},
	"GET /v2/projects/{project_id}/templates": {cross: x(func(a, b *tenant) req { return req{tmpl(b.ProjectID, ""), ""} })},
	"POST /v2/projects/{project_id}/templates": {
		cross: x(func(a, b *tenant) req { return req{tmpl(b.ProjectID, ""), `{"name":"x","template":"t"}`} }),
		write: func(a *tenant) req { return req{tmpl(a.ProjectID, ""), `{"name":"x","template":"t"}`} },
	},
	"GET /v2/projects/{project_id}/templates/versions": {cross: x(
		func(a, b *tenant) req { return req{tmpl(b.ProjectID, "") + "/versions?template_name=qa", ""} },
	), note: "by name: both tenants' templates are named qa, and a's project answers a's own"},
	"GET /v2/projects/{project_id}/templates/{template_id}": {cross: x(
		func(a, b *tenant) req { return req{tmpl(b.ProjectID, b.TemplateID), ""} },
		func(a, b *tenant) req { return req{tmpl(a.ProjectID, b.TemplateID), ""} },
	)},
	"DELETE /v2/projects/{project_id}/templates/{template_id}": {
		cross: x(
			func(a, b *tenant) req { return req{tmpl(b.ProjectID, b.TemplateID), ""} },
			func(a, b *tenant) req { return req{tmpl(a.ProjectID, b.TemplateID), ""} },
		),
		write: func(a *tenant) req { return req{tmpl(a.ProjectID, a.TemplateID), ""} },
	},
	"POST /v2/projects/{project_id}/templates/{template_id}/versions": {
		cross: x(
			func(a, b *tenant) req { return req{tmpl(b.ProjectID, b.TemplateID) + "/versions", `{"template":"t"}`} },
			func(a, b *tenant) req { return req{tmpl(a.ProjectID, b.TemplateID) + "/versions", `{"template":"t"}`} },
		),
		write: func(a *tenant) req { return req{tmpl(a.ProjectID, a.TemplateID) + "/versions", `{"template":"t"}`} },
	},
	"GET /v2/projects/{project_id}/templates/{template_id}/versions/{version}": {cross: x(
		func(a, b *tenant) req { return req{tmpl(b.ProjectID, b.TemplateID) + "/versions/0", ""} },
		func(a, b *tenant) req { return req{tmpl(a.ProjectID, b.TemplateID) + "/versions/0", ""} },
	)},
	"PUT /v2/projects/{project_id}/templates/{template_id}/versions/{version}": {
		cross: x(
			func(a, b *tenant) req { return req{tmpl(b.ProjectID, b.TemplateID) + "/versions/0", ""} },
			func(a, b *tenant) req { return req{tmpl(a.ProjectID, b.TemplateID) + "/versions/0", ""} },
		),
		write: func(a *tenant) req { return req{tmpl(a.ProjectID, a.TemplateID) + "/versions/0", ""} },
	},
	// The global template routes: a template by its id alone (docs/EXPERIMENTS.md).
	"POST /v2/templates": {
		cross: x(func(a, b *tenant) req {
			return req{"/v2/templates?project_id=" + b.ProjectID, `{"name":"x","template":"t"}`}
		}),
		write: func(a *tenant) req {
			return req{"/v2/templates?project_id=" + a.ProjectID, `{"name":"x","template":"t"}`}
		},
	},
	"POST /v2/templates/query": {note: "lists the caller's organization's templates (TestQueryTemplates); its filters' ids are opaque and write nothing"},
	"DELETE /v2/templates/bulk_delete": {
		cross: x(func(a, b *tenant) req {
			return req{"/v2/templates/bulk_delete", fmt.Sprintf(`{"template_ids":[%q]}`, b.TemplateID)}
		}),
		write: func(a *tenant) req {
			return req{"/v2/templates/bulk_delete", fmt.Sprintf(`{"template_ids":[%q]}`, a.TemplateID)}
		},
	},
	"GET /v2/templates/{template_id}": {cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID), ""} })},
	"PATCH /v2/templates/{template_id}": {
		cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID), `{"name":"x"}`} }),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID), `{"name":"x"}`} },
	},
	"DELETE /v2/templates/{template_id}": {
		cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID), ""} }),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID), ""} },
	},
	"POST /v2/templates/{template_id}/versions": {
		cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/versions", `{"template":"t"}`} }),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID) + "/versions", `{"template":"t"}`} },
	},
	"POST /v2/templates/{template_id}/versions/query": {
		cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/versions/query", ""} }),
		note:  "reads the versions: no write",
	},
	"GET /v2/templates/{template_id}/versions/{version}": {cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/versions/0", ""} })},
	"PUT /v2/templates/{template_id}/versions/{version}": {
		cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/versions/0", ""} }),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID) + "/versions/0", ""} },
	},
	"GET /v2/templates/{template_id}/users": {cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/users", ""} })},
	"POST /v2/templates/{template_id}/users": {
		cross: x(
			func(a, b *tenant) req {
				return req{gtmpl(b.TemplateID) + "/users", fmt.Sprintf(`[{"user_id":%q}]`, a.Manager.UserID)}
			},
			func(a, b *tenant) req {
				return req{gtmpl(a.TemplateID) + "/users", fmt.Sprintf(`[{"user_id":%q}]`, b.UserID)}
			},
		),
		write: func(a *tenant) req {
			return req{gtmpl(a.TemplateID) + "/users", fmt.Sprintf(`[{"user_id":%q}]`, a.Manager.UserID)}
		},
	},
	"PATCH /v2/templates/{template_id}/users/{user_id}": {
		cross: x(
			func(a, b *tenant) req {
				return req{gtmpl(b.TemplateID) + "/users/" + a.Manager.UserID, `{"role":"editor"}`}
			},
			func(a, b *tenant) req { return req{gtmpl(a.TemplateID) + "/users/" + b.UserID, `{"role":"editor"}`} },
		),
		write: func(a *tenant) req {
			return req{gtmpl(a.TemplateID) + "/users/" + a.Manager.UserID, `{"role":"editor"}`}
		},
	},
	"DELETE /v2/templates/{template_id}/users/{user_id}": {
		cross: x(
			func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/users/" + a.Manager.UserID, ""} },
			func(a, b *tenant) req { return req{gtmpl(a.TemplateID) + "/users/" + b.UserID, ""} },
		),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID) + "/users/" + a.Manager.UserID, ""} },
	},
	"GET /v2/templates/{template_id}/groups": {cross: x(func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/groups", ""} })},
	"POST /v2/templates/{template_id}/groups": {
		cross: x(
			func(a, b *tenant) req {
				return req{gtmpl(b.TemplateID) + "/groups", fmt.Sprintf(`[{"group_id":%q}]`, a.GroupID)}
			},
			func(a, b *tenant) req {
				return req{gtmpl(a.TemplateID) + "/groups", fmt.Sprintf(`[{"group_id":%q}]`, b.GroupID)}
			},
		),
		write: func(a *tenant) req {
			return req{gtmpl(a.TemplateID) + "/groups", fmt.Sprintf(`[{"group_id":%q}]`, a.GroupID)}
		},
	},
	"PATCH /v2/templates/{template_id}/groups/{group_id}": {
		cross: x(
			func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/groups/" + a.GroupID, `{"role":"editor"}`} },
			func(a, b *tenant) req { return req{gtmpl(a.TemplateID) + "/groups/" + b.GroupID, `{"role":"editor"}`} },
		),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID) + "/groups/" + a.GroupID, `{"role":"editor"}`} },
	},
	"DELETE /v2/templates/{template_id}/groups/{group_id}": {
		cross: x(
			func(a, b *tenant) req { return req{gtmpl(b.TemplateID) + "/groups/" + a.GroupID, ""} },
			func(a, b *tenant) req { return req{gtmpl(a.TemplateID) + "/groups/" + b.GroupID, ""} },
		),
		write: func(a *tenant) req { return req{gtmpl(a.TemplateID) + "/groups/" + a.GroupID, ""} },
	},
	"POST /v2/render_template": {
		cross: x(func(a, b *tenant) req {
			return req{"/v2/render_template", fmt.Sprintf(`{"template":"{{input}}","data":{"dataset_id":%q}}`, b.DatasetID)}
		}),
		note: "renders: no write",
	},
	"PUT /v2/projects/{project_id}/runs/{run_id}/signals/configuration": {
		cross: x(
			func(a, b *tenant) req { return req{signals(b.ProjectID, b.LogStreamID), signalsBody} },
			func(a, b *tenant) req { return req{signals(a.ProjectID, b.LogStreamID), signalsBody} },
			func(a, b *tenant) req { return req{signals(b.ProjectID, b.ExperimentID), signalsBody} },
		),
		write: func(a *tenant) req { return req{signals(a.ProjectID, a.LogStreamID), signalsBody} },
	},
	"GET /v2/projects/{project_id}/runs/{run_id}/signals/configuration": {
		cross: x(
			func(a, b *tenant) req { return req{signals(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{signals(a.ProjectID, b.LogStreamID), ""} },
		),
	},
	"DELETE /v2/projects/{project_id}/runs/{run_id}/signals/configuration": {
		cross: x(
			func(a, b *tenant) req { return req{signals(b.ProjectID, b.LogStreamID), ""} },
			func(a, b *tenant) req { return req{signals(a.ProjectID, b.LogStreamID), ""} },
		),
		write: func(a *tenant) req { return req{signals(a.ProjectID, a.LogStreamID), ""} },
	},
	"POST /v2/projects/{project_id}/runs/{run_id}/signals/runs": {
		cross: x(
			func(a, b *tenant) req { return req{signalsUnder(b.ProjectID, b.LogStreamID, "runs"), ""} },
			func(a, b *tenant) req { return req{signalsUnder(a.ProjectID, b.LogStreamID, "runs"), ""} },
		),
		write: func(a *tenant) req { return req{signalsUnder(a.ProjectID, a.LogStreamID, "runs"), ""} },
	},
	"GET /v2/projects/{project_id}/runs/{run_id}/signals/runs": {
		cross: x(
			func(a, b *tenant) req { return req{signalsUnder(b.ProjectID, b.LogStreamID, "runs"), ""} },
			func(a, b *tenant) req { return req{signalsUnder(a.ProjectID, b.LogStreamID, "runs"), ""} },
		),
	},
	"GET /v2/projects/{project_id}/runs/{run_id}/signals/runs/{signals_run_id}": {
		cross: x(
			func(a, b *tenant) req { return req{signalsUnder(b.ProjectID, b.LogStreamID, "runs/"+b.ProjectID), ""} },
			func(a, b *tenant) req { return req{signalsUnder(a.ProjectID, b.LogStreamID, "runs/"+b.ProjectID), ""} },
		),
	},
	"GET /v2/projects/{project_id}/runs/{run_id}/signals/findings": {
		cross: x(
			func(a, b *tenant) req { return req{signalsUnder(b.ProjectID, b.LogStreamID, "findings"), ""} },
			func(a, b *tenant) req { return req{signalsUnder(a.ProjectID, b.LogStreamID, "findings"), ""} },
		),
	},
	"POST /v2/projects/{project_id}/runs/{run_id}/signals/findings/{finding_id}/acknowledge": {
		note: "the world has no finding (a signals run needs a model); the read-only refusal and another organization's finding are tested in shared/signals (TestOnDemandRunsAndReading)",
		cross: x(
			func(a, b *tenant) req {
				return req{signalsUnder(b.ProjectID, b.LogStreamID, "findings/"+b.ProjectID+"/acknowledge"), ""}
			},
		),
	},
}

// noRecord is the note of an operation that creates a record and names no existing one.
const noRecord = "creates a record of the caller's organization; names no existing record"

// listsOwn is the note of a list of the caller's organization that names no record
// (TestListsShowOnlyTheCallersOrganization holds it to that).
const listsOwn = "lists the caller's organization's records (TestListsShowOnlyTheCallersOrganization)"

const (
	decision    = `{"question":"q?","answer_options":["yes","no"]}`
	llmVersion  = `{"instructions":"Is it polite?"}`
	signalsBody = `{"model":"m","notification_severities":["LOW"]}`
)

var codeVersion = multipartBody(map[string]string{"validation_result": "ok"}, "file", "scorer.py", "def scorer_fn(**kw):\n    return 1\n")

// playgroundJob is the original client's POST /jobs body that runs an experiment.
func playgroundJob(projectID, runID string) string {
	return fmt.Sprintf(`{"project_id":%q,"run_id":%q,"job_name":"playground_run"}`, projectID, runID)
}

func member(userID string) string    { return fmt.Sprintf(`[{"user_id":%q}]`, userID) }
func shareUser(userID string) string { return fmt.Sprintf(`[{"user_id":%q,"role":"viewer"}]`, userID) }
func shareGroup(id string) string    { return fmt.Sprintf(`[{"group_id":%q,"role":"viewer"}]`, id) }
func content(t *tenant) string       { return "/v2/datasets/" + t.DatasetID + "/content" }
func columns(projectID string) string {
	return "/v2/projects/" + projectID + "/traces/available_columns"
}
func edit(rowID string) string {
	return fmt.Sprintf(`{"edits":[{"edit_type":"update_row","row_id":%q,"values":{"input":"changed"}}]}`, rowID)
}
func search(logStreamID string) string {
	return fmt.Sprintf(`{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-01T01:00:00Z","log_stream_id":%q}`, logStreamID)
}
func logStream(projectID, logStreamID string) string {
	return "/v2/projects/" + projectID + "/log_streams/" + logStreamID
}
func evaluatePath(projectID, logStreamID string) string {
	return "/v2/projects/" + projectID + "/log_streams/" + logStreamID + "/evaluate"
}

func evaluateBody(scorerID string) string {
	return fmt.Sprintf(`{"start_time":"2026-01-01T00:00:00Z","end_time":"2026-01-02T00:00:00Z","scorer_ids":[%q]}`, scorerID)
}

func metricSettings(projectID, logStreamID string) string {
	return "/v2/projects/" + projectID + "/log_streams/" + logStreamID + "/metric_settings"
}

func scorerSettings(projectID, runID string) string {
	return "/v2/projects/" + projectID + "/runs/" + runID + "/scorer-settings"
}

// scorerSettingsBody is the client's RunScorerSettingsPatchRequest, enabling scorerID (none
// when empty).
func scorerSettingsBody(runID, scorerID string) string {
	if scorerID == "" {
		return fmt.Sprintf(`{"run_id":%q,"scorers":[]}`, runID)
	}
	return fmt.Sprintf(`{"run_id":%q,"scorers":[{"id":%q}]}`, runID, scorerID)
}

// recordQuery probes a record query of B's log stream, in B's project and in A's; extra
// ends the body.
func recordQuery(path, extra string) entry {
	body := func(ls string) string { return fmt.Sprintf(`{"log_stream_id":%q%s}`, ls, extra) }
	return entry{
		cross: x(
			func(a, b *tenant) req { return req{"/v2/projects/" + b.ProjectID + "/" + path, body(b.LogStreamID)} },
			func(a, b *tenant) req { return req{"/v2/projects/" + a.ProjectID + "/" + path, body(b.LogStreamID)} },
		),
		note: "a query: writes nothing",
	}
}

// otelExport is an OTLP/JSON export whose resource names its run by project and log stream.
const otelExport = `{"resourceSpans":[{"resource":{"attributes":[{"key":"galileo.project","value":{"stringValue":%q}},` +
	`{"key":"galileo.logstream","value":{"stringValue":%q}}]},"scopeSpans":[{"spans":[{"traceId":"5b8efff798038103d269b633813fc60c",` +
	`"spanId":"eee19b7ec3c1b174","name":"n","startTimeUnixNano":"1767607200000000000","endTimeUnixNano":"1767607201000000000"}]}]}]}`

// otelEntry probes an OTLP route: B's project, and B's log stream in A's project, named by
// id in the resource attributes.
func otelEntry(path string) entry {
	return entry{
		cross: x(
			func(a, b *tenant) req { return req{path, fmt.Sprintf(otelExport, b.ProjectID, b.LogStreamID)} },
			func(a, b *tenant) req { return req{path, fmt.Sprintf(otelExport, a.ProjectID, b.LogStreamID)} },
		),
		write: func(a *tenant) req { return req{path, fmt.Sprintf(otelExport, a.ProjectID, a.LogStreamID)} },
	}
}

func deleteBody(logStreamID, id string) string {
	return fmt.Sprintf(`{"log_stream_id":%q,"filters":[{"type":"id","column_id":"id","value":%q}]}`, logStreamID, id)
}

func signals(projectID, runID string) string {
	return "/v2/projects/" + projectID + "/runs/" + runID + "/signals/configuration"
}

func signalsUnder(projectID, runID, rest string) string {
	return "/v2/projects/" + projectID + "/runs/" + runID + "/signals/" + rest
}

func TestCrossTenantMatrix(t *testing.T) {
	w := newWorld(t)
	routes := w.rt.Routes()
	for _, route := range routes {
		if _, ok := matrix[route]; !ok {
			t.Errorf("route %s has no entry in the cross-tenant matrix", route)
		}
	}
	for route, e := range matrix {
		if !slices.Contains(routes, route) {
			t.Errorf("the matrix has an entry for %s, which the router does not serve", route)
		}
		if (e.cross == nil || e.write == nil) && e.note == "" && !strings.HasPrefix(route, "GET ") {
			t.Errorf("%s: a probe kind is missing and the entry says not why", route)
		}
	}
	probes := 0
	for _, route := range routes {
		e := matrix[route]
		method, _, _ := strings.Cut(route, " ")
		for i, build := range e.cross {
			r := build(w.a, w.b)
			t.Run(fmt.Sprintf("cross/%s/%d", route, i), func(t *testing.T) {
				if bd, bulk := bulkDeletes[route]; bulk || w.b.namedIn(r.path) {
					field, id := bd.of(w.b)
					w.probe(t, method, r, http.StatusNotFound, field, id)
					return
				}
				w.bodyProbe(t, method, r)
			})
			probes++
		}
		if e.write != nil {
			r := e.write(w.a)
			t.Run("read_only/"+route, func(t *testing.T) {
				bd := bulkDeletes[route]
				if !bd.perID {
					bd = bulkDelete{}
				}
				field, id := bd.of(w.a)
				w.probe(t, method, r, http.StatusForbidden, field, id)
			})
			probes++
		}
	}
	t.Logf("cross-tenant matrix: %d operations, %d probes", len(routes), probes)
}

// bulkDelete is how a bulk delete reports an id it does not delete: a failed_deletions entry
// whose field holds it. perID: a read-only caller's ids are refused one by one too (datasets'
// roles are per dataset), rather than the whole request with a 403.
type bulkDelete struct {
	field string
	id    func(*tenant) string
	perID bool
}

// of is the field and the id of tn a probe looks for; none for a route that is no bulk delete.
func (b bulkDelete) of(tn *tenant) (field, id string) {
	if b.id == nil {
		return "", ""
	}
	return b.field, b.id(tn)
}

var bulkDeletes = map[string]bulkDelete{
	"DELETE /v2/datasets/bulk_delete":  {"dataset_id", func(tn *tenant) string { return tn.DatasetID }, true},
	"DELETE /v2/templates/bulk_delete": {"template_id", func(tn *tenant) string { return tn.TemplateID }, false},
}

// probe sends r (as A's admin for a 404 probe, as A's read-only user for a 403 probe) and
// requires status want and a table that is byte-identical before and after. A bulk delete
// (bulkField not "") answers 200 and reports id in failed_deletions, in bulkField, instead.
func (w *world) probe(t *testing.T, method string, r req, want int, bulkField, id string) {
	user := w.a.Admin
	if want == http.StatusForbidden {
		user = w.a.ReadOnly
	}
	before, err := w.table.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	code, body := w.do(user, method, r.path, r.body)
	w.env.Service.Wait()
	after, err := w.table.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if bulkField != "" {
		var out struct {
			Deleted int              `json:"deleted_count"`
			Failed  []map[string]any `json:"failed_deletions"`
		}
		if err := json.Unmarshal(body, &out); code != http.StatusOK || err != nil || out.Deleted != 0 ||
			len(out.Failed) != 1 || out.Failed[0][bulkField] != id {
			t.Errorf("%s %s %s: %d %s, want 200 with %s in failed_deletions", method, r.path, r.body, code, body, id)
		}
	} else if code != want {
		t.Errorf("%s %s %s: %d %s, want %d", method, r.path, r.body, code, body, want)
	}
	if changed := before.diff(after); len(changed) > 0 {
		t.Errorf("%s %s %s changed %d items: %v", method, r.path, r.body, len(changed), changed)
	}
	if n := len(before.orgItems(w.b.ID)); n == 0 {
		t.Fatal("organization B has no records: the snapshot sees nothing")
	}
}

// bodyProbe checks a request of A's admin on A's own record that names B's record in its
// body (a user, a group, a scorer, a log stream to share with, file under or search): it
// must answer exactly what it answers for an id that exists nowhere (so nothing tells B's ids
// apart from unknown ones; the service answers 422 for such a reference), and change nothing
// of B. The scorer ids of metric settings are opaque references the service does not
// resolve, so there both answers are the same 200 and only A's settings change.
func (w *world) bodyProbe(t *testing.T, method string, r req) {
	unknown := w.b.unknownIDs()
	ur := req{replaceAll(r.path, unknown), replaceAll(r.body, unknown)}
	before, err := w.table.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	code, body := w.do(w.a.Admin, method, r.path, r.body)
	w.env.Service.Wait()
	after, err := w.table.snapshot(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if changed := before.orgItems(w.b.ID).diff(after.orgItems(w.b.ID)); len(changed) > 0 {
		t.Errorf("%s %s %s changed %d items of organization B: %v", method, r.path, r.body, len(changed), changed)
	}
	ucode, ubody := w.do(w.a.Admin, method, ur.path, ur.body)
	w.env.Service.Wait()
	back := map[string]string{}
	for b, u := range unknown {
		back[u] = b
	}
	ubody = []byte(replaceAll(string(ubody), back))
	if code != ucode || !sameAnswer(body, ubody) {
		t.Errorf("%s %s %s: B's id answers %d %s, an unknown id %d %s: B's records are told apart", method, r.path, r.body, code, body, ucode, ubody)
	}
	if code/100 == 2 && !strings.Contains(r.path, "/metric_settings") {
		t.Errorf("%s %s %s: %d %s, a reference to another organization's record succeeded", method, r.path, r.body, code, body)
	}
}

// sameAnswer compares two answers, ignoring the times and ids a write stamps.
func sameAnswer(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	return fmt.Sprint(scrub(x)) == fmt.Sprint(scrub(y))
}

func scrub(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if strings.HasSuffix(k, "_at") {
				continue
			}
			out[k] = scrub(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = scrub(x)
		}
		return out
	}
	return v
}

func replaceAll(s string, m map[string]string) string {
	for from, to := range m {
		s = strings.ReplaceAll(s, from, to)
	}
	return s
}

// TestListsShowOnlyTheCallersOrganization: the operations that list without naming a record
// show nothing of the other organization.
func TestListsShowOnlyTheCallersOrganization(t *testing.T) {
	w := newWorld(t)
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/v2/api_keys", ""}, {"GET", "/v2/current_user", ""}, {"GET", "/v2/datasets/" + w.a.DatasetID + "/groups", ""},
		{"GET", "/v2/projects/" + w.a.ProjectID + "/experiments", ""},
		{"GET", "/v2/projects", ""}, {"GET", "/projects/all", ""}, {"POST", "/v2/projects/paginated", `{}`},
		{"GET", "/v2/projects?project_name=project-" + w.b.name, ""},
		{"GET", "/v2/projects/" + w.a.ProjectID + "/log_streams", ""},
		{"POST", "/v2/scorers/list", `{}`},
		{"GET", "/datasets", ""}, {"POST", "/v2/datasets/query", `{}`},
		{"POST", "/v2/projects/" + w.a.ProjectID + "/log_streams/search", `{}`},
	} {
		code, body := w.do(w.a.Admin, r.method, r.path, r.body)
		if code != http.StatusOK {
			t.Errorf("%s %s: %d %s", r.method, r.path, code, body)
		}
		for _, id := range []string{w.b.ID, w.b.Admin.UserID, w.b.APIKeyID, w.b.GroupID, w.b.ExperimentID, w.b.UserID,
			w.b.ProjectID, w.b.LogStreamID, w.b.ScorerID, w.b.DatasetID} {
			if strings.Contains(string(body), id) {
				t.Errorf("%s %s as A shows B's id %s: %s", r.method, r.path, id, body)
			}
		}
	}
}

// The integration list of a user holds what their organization shared with them, and
// nothing of the other organization's, whose integration is shared within it the same way.
func TestIntegrationListShowsOnlyTheCallersOrganization(t *testing.T) {
	w := newWorld(t)
	for _, u := range []authtest.User{w.a.User, w.a.ReadOnly} {
		code, body := w.do(u, "GET", "/v2/integrations", "")
		if code != http.StatusOK || !strings.Contains(string(body), w.a.IntegrationID) {
			t.Errorf("%s: %d %s, want A's shared integration %s", u.Email, code, body, w.a.IntegrationID)
		}
		for _, id := range []string{w.b.IntegrationID, w.b.ID, w.b.Admin.UserID} {
			if strings.Contains(string(body), id) {
				t.Errorf("%s as A shows B's id %s: %s", u.Email, id, body)
			}
		}
	}
}

// Paths and bodies of the experiment runs and templates (docs/EXPERIMENTS.md).
func exps(projectID string) string { return "/v2/projects/" + projectID + "/experiments" }

func job(projectID, experimentID, jobID string) string {
	return exps(projectID) + "/" + experimentID + "/jobs/" + jobID
}

func tmpl(projectID, templateID string) string {
	if templateID == "" {
		return "/v2/projects/" + projectID + "/templates"
	}
	return "/v2/projects/" + projectID + "/templates/" + templateID
}

func gtmpl(templateID string) string { return "/v2/templates/" + templateID }

func compareBody(ids ...string) string {
	b, _ := json.Marshal(map[string]any{"experiment_ids": ids})
	return string(b)
}
