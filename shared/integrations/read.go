package integrations

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// get is GET /v2/integrations/{integration_id} (beyond the specification): the integration
// as the write operations answer it, model_prices included, for its owner, an admin of its
// organization, and the users it is shared with. 404 for anyone else.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{}, base.PathID("integration_id", 4))
	if err != nil {
		return err
	}
	c := call.Caller
	in, err := h.visible(r.Context(), c, call.In)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, integrationOut(in, accessOf(c, in, true)))
	return nil
}

// list is GET /v2/integrations (the original client's GET /integrations): every integration
// the caller can use — their own, one per provider, in provider order, then those shared with
// them, as get answers each one — never a credential or a setting beyond model_prices.
func (h *handlers) list(w http.ResponseWriter, r *http.Request) error {
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	// The two reads are independent partitions: side by side, one round trip of latency.
	var shared []store.Integration
	sharedErr := make(chan error, 1)
	go func() {
		var err error
		shared, err = store.SharedIntegrations(r.Context(), h.Table, c.OrgID, c.UserID)
		sharedErr <- err
	}()
	own, err := store.UserIntegrations(r.Context(), h.Table, c.OrgID, c.UserID)
	if err := errors.Join(err, <-sharedErr); err != nil {
		return fmt.Errorf("list integrations: %w", err)
	}
	out := make([]integration, 0, len(own)+len(shared))
	seen := make(map[string]bool, len(own))
	for _, in := range own {
		seen[in.ID] = true
		out = append(out, integrationOut(in, accessOwner))
	}
	for _, in := range shared {
		if !seen[in.ID] { // the owner is never a viewer, but a stale entry must not list twice
			seen[in.ID] = true
			out = append(out, integrationOut(in, accessOf(c, in, true)))
		}
	}
	httpapi.WriteJSON(w, http.StatusOK, out)
	return nil
}
