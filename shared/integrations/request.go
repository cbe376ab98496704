package integrations

import (
	"slices"
	"strings"

	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/validate"
)

// Provider values of the two writable integrations (spec §2.1's stand-ins).
const (
	ProviderCloudHost   = "cloud-host"
	ProviderModelVendor = "model-vendor"
)

// DefaultAPIVersion is the cloud-host api_version when the body has none.
const DefaultAPIVersion = "2025-03-01-preview"

// authenticationTypes are the cloud-host authentication types, in the original's order.
var authenticationTypes = []string{"api_key", "client_secret", "username_password", "custom_oauth2"}

// credentialsIn are the secret parts of a write body: they go to the secret store only, and
// print as "[redacted]" wherever they travel.
type credentialsIn struct {
	Token          secrets.Value
	APIKeyValue    secrets.Value            // custom integrations with api_key authentication
	DefaultHeaders map[string]secrets.Value // nil when the body has none
}

// write is a validated integration write: the settings DynamoDB keeps and the credentials
// the secret keeps.
type write struct {
	provider string
	settings map[string]any
	creds    credentialsIn
	// discover is set for a cloud-host body without available_deployments: the endpoint's
	// list is fetched and stored under settings["available_deployments"].
	discover bool
}

// readToken reads the required token, straight into a secrets.Value.
func readToken(o validate.Obj) secrets.Value {
	s, _ := o.Get("token").Required().String(validate.MinLen(1))
	return secrets.NewValueString(s)
}

// readModelVendor reads {token, organization_id}.
func readModelVendor(errs *validate.Errors, raw any, present bool) write {
	w := write{provider: ProviderModelVendor, settings: map[string]any{"organization_id": nil}}
	if o, ok := errs.Body(raw, present).Required().Object(); ok {
		w.creds.Token = readToken(o)
		if org, ok := o.Get("organization_id").Nullable().String(); ok {
			w.settings["organization_id"] = org
		}
		readModelPrices(o, w.settings)
	}
	return w
}

// readCloudHost reads the cloud-host body (SPEC-DECISIONS "Integrations"). allowPrivate
// lets the endpoint be an http URL, for a fake provider on loopback.
func readCloudHost(errs *validate.Errors, raw any, present bool, allowPrivate bool) write {
	w := write{provider: ProviderCloudHost}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return w
	}
	w.creds.Token = readToken(o)
	s := map[string]any{"proxy": false, "api_version": DefaultAPIVersion, "azure_deployment": nil,
		"authentication_type": "api_key", "authentication_scope": nil, "oauth2_token_url": nil,
		"custom_header_mapping": nil, "available_deployments": nil, "multi_modal_config": nil}
	w.settings = s

	ep := o.Get("endpoint").Required()
	if e, ok := ep.String(); ok {
		if _, err := egress.CheckEndpoint(e, allowPrivate); err != nil {
			ep.Add(validate.ValueError(ep.Loc(), endpointInput(e), causeMessage(err)))
		}
		s["endpoint"] = e
	}
	if v, ok := o.Get("proxy").Bool(); ok {
		s["proxy"] = v
	}
	if v, ok := o.Get("api_version").String(); ok {
		s["api_version"] = v
	}
	for _, name := range []string{"azure_deployment", "authentication_scope"} {
		if v, ok := o.Get(name).Nullable().String(); ok {
			s[name] = v
		}
	}
	if v, ok := o.Get("authentication_type").Enum(authenticationTypes...); ok {
		s["authentication_type"] = v
	}
	tokenURL := o.Get("oauth2_token_url").Nullable()
	if v, ok := tokenURL.String(); ok {
		if _, err := egress.CheckEndpoint(v, allowPrivate); err != nil {
			errs.Add(validate.ValueError(tokenURL.Loc(), endpointInput(v),
				"oauth2_token_url must be an https URL with a host and no credentials"))
		}
		s["oauth2_token_url"] = v
	} else if s["authentication_type"] == "custom_oauth2" && (!tokenURL.Present() || tokenURL.IsNull()) {
		errs.Add(validate.Missing(tokenURL.Loc(), o.Raw()))
	}
	if m, ok := o.Get("default_headers").Nullable().StringMap(); ok {
		w.creds.DefaultHeaders = make(map[string]secrets.Value, len(m))
		for k, v := range m {
			w.creds.DefaultHeaders[k] = secrets.NewValueString(v)
		}
	}
	if m, ok := o.Get("custom_header_mapping").Nullable().StringMap(); ok {
		s["custom_header_mapping"] = stringMap(m)
	}
	deployments := o.Get("available_deployments").Nullable()
	if items, ok := deployments.List(); ok {
		list := make([]any, 0, len(items))
		for _, item := range items {
			d, ok := item.Object()
			if !ok {
				continue
			}
			model, _ := d.Get("model").Required().String()
			id, _ := d.Get("id").Required().String()
			list = append(list, map[string]any{"model": model, "id": id})
		}
		s["available_deployments"] = list
	}
	w.discover = !deployments.Present() || deployments.IsNull()
	// The original's clients may send deployments, a map of model name to deployment id:
	// kept, and, without available_deployments, taken as the list of deployments (which the
	// service then does not fetch).
	if m, ok := o.Get("deployments").Nullable().StringMap(); ok {
		s["deployments"] = stringMap(m)
		if w.discover && len(m) > 0 {
			models := make([]string, 0, len(m))
			for model := range m {
				models = append(models, model)
			}
			slices.Sort(models)
			list := make([]any, 0, len(m))
			for _, model := range models {
				list = append(list, map[string]any{"model": model, "id": m[model]})
			}
			s["available_deployments"], w.discover = list, false
		}
	}
	readMultiModal(o, s)
	readModelPrices(o, s)
	return w
}

// endpointInput is what a 422 at a URL field echoes: the URL, unless it may carry a
// credential, in a user part ("@" anywhere) or in a query or fragment (an api-key or
// client_secret parameter): those are refused anyway, and never echoed.
func endpointInput(e string) any {
	if strings.ContainsAny(e, "@?#") {
		return validate.Redacted
	}
	return e
}

func stringMap(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
