// Package integrations serves a user's model-provider integrations: creating or replacing
// the cloud-host and model-vendor integrations (operations 2 and 3) and the custom
// integration (any chat-completions server, beyond the specification, with the original's
// body), and sharing one with other users as viewers (operation 4). Every integration may
// carry model_prices (beyond the specification): what the judge prices its calls with,
// shown by GET /v2/integrations/{integration_id} (beyond the specification too).
//
// Credentials never reach DynamoDB: the token and every other credential-bearing field go
// into one secret per integration through the secrets port, and the record keeps its ref.
// A cloud-host body without available_deployments makes the service list them from the
// endpoint, through a client that connects only to public addresses (see Discoverer).
package integrations

import (
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/secrets"
)

// Deps is what the group needs.
type Deps struct {
	base.Deps
	Secrets secrets.Store
	// Discoverer lists cloud-host deployments; nil is one with the defaults (public
	// addresses only, DefaultDiscoveryTimeout).
	Discoverer *Discoverer
	// Attempts bounds the rounds of a write that loses races to concurrent writes of the
	// same integration; zero is DefaultAttempts.
	Attempts int
}

// DefaultAttempts lets the concurrent writes of one caller all land, one after the other.
const DefaultAttempts = 50

// Register mounts the group's operations on rt, each behind authentication.
func Register(rt *httpapi.Router, d Deps) {
	if d.Secrets == nil {
		panic("integrations: Deps.Secrets is required")
	}
	d.Deps = d.Deps.WithDefaults("integrations")
	if d.Discoverer == nil {
		d.Discoverer = &Discoverer{}
	}
	if d.Attempts <= 0 {
		d.Attempts = DefaultAttempts
	}
	h := &handlers{Deps: d}
	rt.Handle("PUT /v2/integrations/cloud-host", h.putCloudHost, d.Authenticate)
	rt.Handle("PUT /v2/integrations/model-vendor", h.putModelVendor, d.Authenticate)
	rt.Handle("PUT /v2/integrations/custom", h.putCustom, d.Authenticate)
	rt.Handle("GET /v2/integrations", h.list, d.Authenticate)
	rt.Handle("GET /v2/integrations/{integration_id}", h.get, d.Authenticate)
	rt.Handle("POST /v2/integrations/{integration_id}/users", h.share, d.Authenticate)
}

type handlers struct{ Deps }
