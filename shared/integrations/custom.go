package integrations

import (
	"math"
	"net/http"
	"strings"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/egress"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/validate"
)

// ProviderCustom is the provider value of a custom integration: any chat-completions server.
const ProviderCustom = "custom"

// customAuthenticationTypes are the original's CustomAuthenticationType values.
var customAuthenticationTypes = []string{"api_key", "none", "oauth2"}

// Bounds of the lists a custom integration keeps.
const (
	maxModels      = 1000
	maxModelPrices = 1000
)

// putCustom is PUT /v2/integrations/custom: the original's CustomIntegrationCreate.
func (h *handlers) putCustom(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, func(in *base.Input) write {
		return readCustom(in.Errs, in.Raw, in.Present, h.Discoverer.AllowPrivate)
	})
	if err != nil {
		return err
	}
	return h.save(w, r, call.Caller, call.In)
}

// readCustom reads the custom body. The credentials (token: the OAuth2 client credentials;
// api_key_value; headers) go to the secret; the rest are settings.
func readCustom(errs *validate.Errors, raw any, present bool, allowPrivate bool) write {
	w := write{provider: ProviderCustom}
	o, ok := errs.Body(raw, present).Required().Object()
	if !ok {
		return w
	}
	s := map[string]any{"authentication_type": "oauth2", "models": nil, "model_properties": nil,
		"is_legacy_format": false, "default_model": nil, "authentication_scope": nil, "oauth2_token_url": nil,
		"api_key_header": nil, "custom_llm_config": nil, "custom_header_mapping": nil, "multi_modal_config": nil}
	w.settings = s

	ep := o.Get("endpoint").Required()
	if e, ok := ep.String(); ok {
		if _, err := egress.CheckEndpoint(e, allowPrivate); err != nil {
			ep.Add(validate.ValueError(ep.Loc(), endpointInput(e), causeMessage(err)))
		}
		s["endpoint"] = e
	}
	if v, ok := o.Get("authentication_type").Enum(customAuthenticationTypes...); ok {
		s["authentication_type"] = v
	}
	authType := s["authentication_type"]
	if items, ok := o.Get("models").Nullable().List(validate.MaxLen(maxModels)); ok {
		models := make([]any, 0, len(items))
		for _, it := range items {
			if m, ok := it.String(validate.MinLen(1), validate.MaxLen(255)); ok {
				models = append(models, m)
			}
		}
		s["models"] = models
	}
	if items, ok := o.Get("model_properties").Nullable().List(validate.MaxLen(maxModels)); ok {
		props := make([]any, 0, len(items))
		for _, it := range items {
			p, ok := it.Object()
			if !ok {
				continue
			}
			name, _ := p.Get("name").Required().String(validate.MinLen(1), validate.MaxLen(255))
			prop := map[string]any{"name": name, "alias": nil, "based_on": nil, "supported_parameters": nil}
			for _, f := range []string{"alias", "based_on"} {
				if v, ok := p.Get(f).Nullable().String(validate.MaxLen(255)); ok {
					prop[f] = v
				}
			}
			if ps, ok := p.Get("supported_parameters").Nullable().List(); ok {
				list := make([]any, 0, len(ps))
				for _, x := range ps {
					if v, ok := x.String(); ok {
						list = append(list, v)
					}
				}
				prop["supported_parameters"] = list
			}
			props = append(props, prop)
		}
		s["model_properties"] = props
	}
	if v, ok := o.Get("is_legacy_format").Bool(); ok {
		s["is_legacy_format"] = v
	}
	for _, name := range []string{"default_model", "authentication_scope", "api_key_header"} {
		if v, ok := o.Get(name).Nullable().String(validate.MaxLen(255)); ok {
			s[name] = v
		}
	}

	tokenURL := o.Get("oauth2_token_url").Nullable()
	if v, ok := tokenURL.String(); ok {
		if _, err := egress.CheckEndpoint(v, allowPrivate); err != nil {
			errs.Add(validate.ValueError(tokenURL.Loc(), endpointInput(v),
				"oauth2_token_url must be an https URL with a host and no credentials"))
		}
		s["oauth2_token_url"] = v
	}
	tok := o.Get("token").Nullable()
	if v, ok := tok.String(); ok {
		w.creds.Token = secrets.NewValueString(v)
	}
	keyValue := o.Get("api_key_value").Nullable()
	if v, ok := keyValue.String(); ok {
		w.creds.APIKeyValue = secrets.NewValueString(v)
	}
	absent := func(v validate.Value) bool { return !v.Present() || v.IsNull() }
	switch authType {
	case "oauth2":
		if absent(tokenURL) {
			errs.Add(validate.Missing(tokenURL.Loc(), o.Raw()))
		}
		if absent(tok) {
			errs.Add(validate.Missing(tok.Loc(), o.Raw()))
		} else if _, _, ok := provider.ClientCredentials(w.creds.Token); !ok && tok.Raw() != nil {
			if _, isString := tok.Raw().(string); isString {
				errs.Add(validate.ValueError(tok.Loc(), validate.Redacted,
					`token must hold the OAuth2 client credentials as "client_id:client_secret" or {"client_id","client_secret"}`))
			}
		}
	case "api_key":
		header := o.Get("api_key_header")
		if h, _ := s["api_key_header"].(string); h == "" {
			if absent(header) {
				errs.Add(validate.Missing(header.Loc(), o.Raw()))
			}
		} else if !validHeaderName(h) {
			errs.Add(validate.ValueError(header.Loc(), h, "api_key_header must be a valid HTTP header name"))
		}
		if absent(keyValue) {
			errs.Add(validate.Missing(keyValue.Loc(), o.Raw()))
		}
	}
	if m, ok := o.Get("headers").Nullable().StringMap(); ok {
		w.creds.DefaultHeaders = make(map[string]secrets.Value, len(m))
		for k, v := range m {
			w.creds.DefaultHeaders[k] = secrets.NewValueString(v)
		}
	}
	if m, ok := o.Get("custom_header_mapping").Nullable().StringMap(); ok {
		s["custom_header_mapping"] = stringMap(m)
	}
	if c, ok := o.Get("custom_llm_config").Nullable().Object(); ok {
		file, _ := c.Get("file_name").Required().String()
		class, _ := c.Get("class_name").Required().String()
		cfg := map[string]any{"file_name": file, "class_name": class, "init_kwargs": nil}
		if kw, ok := c.Get("init_kwargs").Nullable().Dict(); ok {
			cfg["init_kwargs"] = kw.Raw()
		}
		s["custom_llm_config"] = cfg
	}
	readMultiModal(o, s)
	readModelPrices(o, s)
	return w
}

// validHeaderName reports whether name is an HTTP token (RFC 9110 §5.6.2).
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range name {
		if c > 0x7e || c <= ' ' || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, c) {
			return false
		}
	}
	return true
}

func readMultiModal(o validate.Obj, s map[string]any) {
	if mm, ok := o.Get("multi_modal_config").Nullable().Object(); ok {
		cfg := map[string]any{"max_files": nil, "max_file_size_bytes": nil}
		for _, name := range []string{"max_files", "max_file_size_bytes"} {
			if n, ok := mm.Get(name).Nullable().Int(validate.Ge(1)); ok {
				cfg[name] = n
			}
		}
		s["multi_modal_config"] = cfg
	}
}

// readModelPrices reads model_prices (beyond the specification): per model, the USD price of
// a million input and of a million output tokens, which the judge prices its calls with.
// Absent leaves the stored prices unset (null); a replace without it drops them, as every
// other setting of a PUT.
func readModelPrices(o validate.Obj, s map[string]any) {
	v := o.Get("model_prices").Nullable()
	m, ok := v.Dict()
	if !ok {
		if v.IsNull() || !v.Present() {
			s["model_prices"] = nil
		}
		return
	}
	keys := m.Keys()
	if len(keys) > maxModelPrices {
		v.Fail("model_prices may name at most 1000 models")
		return
	}
	out := make(map[string]any, len(keys))
	for _, model := range keys {
		if model == "" || len(model) > 255 {
			m.Get(model).Fail("a model name must have 1 to 255 characters")
			continue
		}
		p, ok := m.Get(model).Object()
		if !ok {
			continue
		}
		in, ok1 := p.Get("input_per_million").Required().Float(validate.Ge(0))
		outp, ok2 := p.Get("output_per_million").Required().Float(validate.Ge(0))
		if ok1 && ok2 && !math.IsInf(in, 0) && !math.IsInf(outp, 0) {
			out[model] = map[string]any{"input_per_million": in, "output_per_million": outp}
		}
	}
	s["model_prices"] = out
}
