package integrations

import (
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
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
