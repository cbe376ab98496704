// Package credentials is the one secret value of a model-provider integration: how the
// integrations group writes it and how the judge reads it back, through the secrets port.
// The value carries the revision of the integration record it was written with, so a reader
// can tell a secret that does not belong to the record it holds (a replace whose record
// write failed, or a cached value older than the record).
package credentials

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// SecretName is the name of an integration's secret under the store's prefix (the Secrets
// Manager adapter puts SECRETS_PREFIX in front).
func SecretName(integrationID string) string { return "integrations/" + integrationID }

// Set is the secret part of an integration.
type Set struct {
	Token       secrets.Value            // the provider token; a custom integration's OAuth2 client credentials
	APIKeyValue secrets.Value            // a custom integration's API key
	Headers     map[string]secrets.Value // cloud-host default_headers, custom headers
}

// doc is the stored form.
type doc struct {
	Revision       string            `json:"revision"`
	Token          string            `json:"token"`
	APIKeyValue    string            `json:"api_key_value,omitempty"`
	DefaultHeaders map[string]string `json:"default_headers,omitempty"`
}

// Encode returns the secret value of s for a record of revision. The caller clears it after
// use. The error never quotes the value.
func Encode(revision string, s Set) ([]byte, error) {
	d := doc{Revision: revision, Token: s.Token.RevealString(), APIKeyValue: s.APIKeyValue.RevealString()}
	if s.Headers != nil {
		d.DefaultHeaders = make(map[string]string, len(s.Headers))
		for k, v := range s.Headers {
			d.DefaultHeaders[k] = v.RevealString()
		}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil, errors.New("credentials: encode secret") // never wrap: the error could quote the value
	}
	return b, nil
}

// Read returns the credentials of in through sec: ok is false when the secret was not
// written with in's revision, and the caller should not use them.
func Read(ctx context.Context, sec secrets.Store, in store.Integration) (s Set, ok bool, err error) {
	b, err := sec.Get(ctx, in.SecretRef)
	if err != nil {
		return Set{}, false, err
	}
	defer clear(b)
	var d doc
	if json.Unmarshal(b, &d) != nil {
		return Set{}, false, errors.New("credentials: secret is not a credential document")
	}
	s.Headers = make(map[string]secrets.Value, len(d.DefaultHeaders))
	for k, v := range d.DefaultHeaders {
		s.Headers[k] = secrets.NewValueString(v)
	}
	s.Token, s.APIKeyValue = secrets.NewValueString(d.Token), secrets.NewValueString(d.APIKeyValue)
	return s, d.Revision == in.Revision, nil
}
