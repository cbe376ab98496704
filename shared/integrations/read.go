package integrations

import (
	"net/http"

	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/validate"
)

// get is GET /v2/integrations/{integration_id} (beyond the specification): the integration
// as the write operations answer it, model_prices included, for its owner, an admin of its
// organization, and the users it is shared with. 404 for anyone else.
func (h *handlers) get(w http.ResponseWriter, r *http.Request) error {
	errs := validate.New()
	id, _ := errs.Path("integration_id", r.PathValue("integration_id")).UUID(4)
	if err := errs.Err(); err != nil {
		return err
	}
	c, err := base.Caller(r)
	if err != nil {
		return err
	}
	in, err := h.visible(r.Context(), c, id)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, http.StatusOK, integrationOut(in, accessOf(c, in, true)))
	return nil
}
