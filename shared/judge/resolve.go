package judge

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/credentials"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// Provider values of the integrations the judge calls.
const (
	providerCustom      = "custom"
	providerCloudHost   = "cloud-host"
	providerModelVendor = "model-vendor"
)

// resolved is where one judgment's model is asked.
type resolved struct {
	target        provider.Target
	model         string // the model name sent
	integrationID string
	price         *price
}

// match is an integration that serves the model.
type match struct {
	in         store.Integration
	model      string // the name to send
	deployment string // cloud-host
}

// resolve finds the integration of r.UserID that serves model (see docs/EVALUATION.md,
// "Which integration answers"):
//
//  1. explicit: a custom integration listing the model (models, default_model, or a
//     model_properties name or alias), then a cloud-host deployment of it (available_deployments
//     by model or id, deployments, azure_deployment);
//  2. catch-all: the model-vendor integration (its catalogue is the vendor's), then a custom
//     integration that lists no models;
//  3. no model named: the custom integration's default_model, else the cloud-host
//     integration's azure_deployment.
//
// Disabled integrations are skipped; when only disabled ones match, the error says so.
func (e *Engine) resolve(ctx context.Context, r Request, model string) (resolved, *provider.Error) {
	ins, err := store.UserIntegrations(ctx, e.Table, r.OrgID, r.UserID)
	if err != nil {
		pe := provider.Errorf(provider.ClassAPI, "the integrations could not be read")
		pe.Retryable = true
		return resolved{}, pe
	}
	m, perr := pick(ins, model)
	if perr != nil {
		return resolved{}, perr
	}
	cr, perr := e.credentials(ctx, m.in)
	if perr != nil {
		return resolved{}, perr
	}
	t, perr := e.target(m, cr)
	if perr != nil {
		return resolved{}, perr
	}
	return resolved{target: t, model: m.model, integrationID: m.in.ID, price: priceOf(m.in, m.model, model)}, nil
}

func pick(ins []store.Integration, model string) (match, *provider.Error) {
	by := map[string]store.Integration{}
	for _, in := range ins {
		by[in.Provider] = in
	}
	var candidates []match
	add := func(p string, f func(store.Integration) (match, bool)) {
		if in, ok := by[p]; ok {
			if m, ok := f(in); ok {
				m.in = in
				candidates = append(candidates, m)
			}
		}
	}
	if model == "" {
		add(providerCustom, func(in store.Integration) (match, bool) {
			d := setting(in, "default_model")
			return match{model: d}, d != ""
		})
		add(providerCloudHost, func(in store.Integration) (match, bool) {
			d := setting(in, "azure_deployment")
			return match{model: d, deployment: d}, d != ""
		})
	} else {
		add(providerCustom, func(in store.Integration) (match, bool) { return customServes(in, model) })
		add(providerCloudHost, func(in store.Integration) (match, bool) { return cloudServes(in, model) })
		add(providerModelVendor, func(store.Integration) (match, bool) { return match{model: model}, true })
		add(providerCustom, func(in store.Integration) (match, bool) {
			return match{model: model}, list(in, "models") == nil && setting(in, "default_model") == "" && list(in, "model_properties") == nil
		})
	}
	for _, m := range candidates {
		if !m.in.IsDisabled {
			return m, nil
		}
	}
	switch {
	case len(candidates) > 0:
		return match{}, provider.Errorf(provider.ClassConfiguration, "the %s integration that serves model %q is disabled", candidates[0].in.Provider, model)
	case model == "":
		return match{}, provider.Errorf(provider.ClassConfiguration, "the scorer names no model and no integration has a default model")
	}
	return match{}, provider.Errorf(provider.ClassConfiguration, "no integration of the user serves model %q", model)
}

func customServes(in store.Integration, model string) (match, bool) {
	for _, m := range list(in, "models") {
		if s, _ := m.(string); s == model {
			return match{model: model}, true
		}
	}
	if setting(in, "default_model") == model {
		return match{model: model}, true
	}
	for _, p := range list(in, "model_properties") {
		prop, _ := p.(map[string]any)
		name, _ := prop["name"].(string)
		alias, _ := prop["alias"].(string)
		if name != "" && (name == model || alias == model) {
			return match{model: name}, true
		}
	}
	return match{}, false
}

func cloudServes(in store.Integration, model string) (match, bool) {
	for _, d := range list(in, "available_deployments") {
		dep, _ := d.(map[string]any)
		m, _ := dep["model"].(string)
		id, _ := dep["id"].(string)
		if id != "" && (m == model || id == model) {
			return match{model: model, deployment: id}, true
		}
	}
	if ds, ok := in.Settings["deployments"].(map[string]any); ok {
		if id, _ := ds[model].(string); id != "" {
			return match{model: model, deployment: id}, true
		}
	}
	if d := setting(in, "azure_deployment"); d != "" && d == model {
		return match{model: model, deployment: d}, true
	}
	return match{}, false
}

// credentials reads the integration's secret; a cached value of another revision is read
// again from the uncached store (the integration was replaced since it was cached).
func (e *Engine) credentials(ctx context.Context, in store.Integration) (credentials.Set, *provider.Error) {
	cr, ok, err := credentials.Read(ctx, e.Secrets, in)
	if err == nil && !ok && e.Fresh != nil {
		cr, ok, err = credentials.Read(ctx, e.Fresh, in)
	}
	switch {
	case errors.Is(err, secrets.ErrNotFound):
		return credentials.Set{}, provider.Errorf(provider.ClassConfiguration, "the integration's credentials are missing")
	case err != nil:
		pe := provider.Errorf(provider.ClassAPI, "the integration's credentials could not be read")
		pe.Retryable = true
		return credentials.Set{}, pe
	case !ok:
		// A replace whose record write failed: the next write of the integration repairs it.
		pe := provider.Errorf(provider.ClassConfiguration, "the integration's credentials do not match its settings; save the integration again")
		pe.Retryable = true
		return credentials.Set{}, pe
	}
	return cr, nil
}

// target builds the provider target of a match.
func (e *Engine) target(m match, cr credentials.Set) (provider.Target, *provider.Error) {
	in := m.in
	t := provider.Target{Headers: cr.Headers, HeaderMapping: stringMap(in.Settings["custom_header_mapping"])}
	switch in.Provider {
	case providerModelVendor:
		t.Protocol, t.BaseURL = provider.ProtocolChat, e.VendorBaseURL
		if t.BaseURL == "" {
			t.BaseURL = provider.DefaultVendorBaseURL
		}
		t.Auth = provider.Auth{Type: provider.AuthBearer, Secret: cr.Token}
		if org := setting(in, "organization_id"); org != "" {
			t.Headers = map[string]secrets.Value{"OpenAI-Organization": secrets.NewValueString(org)}
		}
	case providerCloudHost:
		t.Protocol, t.BaseURL, t.Deployment = provider.ProtocolCloudHost, setting(in, "endpoint"), m.deployment
		t.APIVersion = setting(in, "api_version")
		switch setting(in, "authentication_type") {
		case "", "api_key":
			t.Auth = provider.Auth{Type: provider.AuthAPIKey, Header: "api-key", Secret: cr.Token}
		case "custom_oauth2":
			t.Auth = provider.Auth{Type: provider.AuthOAuth2, Secret: cr.Token, TokenURL: setting(in, "oauth2_token_url"),
				Scope: setting(in, "authentication_scope")}
		default:
			return t, provider.Errorf(provider.ClassConfiguration, "cloud-host authentication %s is not run by this deployment", setting(in, "authentication_type"))
		}
	case providerCustom:
		t.Protocol, t.BaseURL = provider.ProtocolChat, setting(in, "endpoint")
		switch setting(in, "authentication_type") {
		case "none":
			t.Auth = provider.Auth{Type: provider.AuthNone}
		case "api_key":
			t.Auth = provider.Auth{Type: provider.AuthAPIKey, Header: setting(in, "api_key_header"), Secret: cr.APIKeyValue}
		default:
			t.Auth = provider.Auth{Type: provider.AuthOAuth2, Secret: cr.Token, TokenURL: setting(in, "oauth2_token_url"),
				Scope: setting(in, "authentication_scope")}
		}
	default:
		return t, provider.Errorf(provider.ClassConfiguration, "%s integrations are not run by this deployment", in.Provider)
	}
	return t, nil
}

func setting(in store.Integration, name string) string {
	s, _ := in.Settings[name].(string)
	return s
}

func list(in store.Integration, name string) []any {
	l, _ := in.Settings[name].([]any)
	return l
}

func stringMap(v any) map[string]string {
	m, _ := v.(map[string]any)
	if len(m) == 0 {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, x := range m {
		if s, ok := x.(string); ok {
			out[k] = s
		}
	}
	return out
}

// price is a model's USD price per million tokens.
type price struct{ input, output float64 }

// priceOf reads the integration's model_prices for the model sent, else for the name the
// scorer asked for (an alias).
func priceOf(in store.Integration, names ...string) *price {
	ps, _ := in.Settings["model_prices"].(map[string]any)
	for _, n := range names {
		p, _ := ps[n].(map[string]any)
		i, ok1 := number(p["input_per_million"])
		o, ok2 := number(p["output_per_million"])
		if ok1 && ok2 {
			return &price{input: i, output: o}
		}
	}
	return nil
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

// cost prices a usage; nil without a price.
func (p *price) cost(u provider.Usage) *float64 {
	if p == nil {
		return nil
	}
	c := (float64(u.InputTokens)*p.input + float64(u.OutputTokens)*p.output) / 1e6
	return &c
}

// Price is a model's USD price per million tokens, from an integration's model_prices.
type Price struct {
	InputPerMillion  float64
	OutputPerMillion float64
}

// Cost prices a token usage.
func (p Price) Cost(u provider.Usage) float64 {
	return (float64(u.InputTokens)*p.InputPerMillion + float64(u.OutputTokens)*p.OutputPerMillion) / 1e6
}

// PriceOf returns the price of model as a judgment of userID would pay it: the integration
// the resolution rule picks, and its model_prices entry. ok is false when the model has no
// price (or no integration serves it: perr says why). For budgets: a USD budget on a model
// without a price is refused, and the dispatcher estimates a judgment's cost with it.
func (e *Engine) PriceOf(ctx context.Context, orgID, userID, model string) (p Price, ok bool, perr *provider.Error) {
	ins, err := store.UserIntegrations(ctx, e.Table, orgID, userID)
	if err != nil {
		pe := provider.Errorf(provider.ClassAPI, "the integrations could not be read")
		pe.Retryable = true
		return Price{}, false, pe
	}
	m, perr := pick(ins, model)
	if perr != nil {
		return Price{}, false, perr
	}
	pr := priceOf(m.in, m.model, model)
	if pr == nil {
		return Price{}, false, nil
	}
	return Price{InputPerMillion: pr.input, OutputPerMillion: pr.output}, true, nil
}
