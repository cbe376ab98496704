package judge

import (
	"context"

	"github.com/evalobs/evalapi/shared/provider"
)

// Complete asks model, resolved to an integration of userID in orgID as the judges' models
// are (docs/EVALUATION.md, "Which integration answers"), with the integration's credentials:
// the completion other services make on a user's behalf (signals runs). req.Model is set to
// the name the integration expects. Failures are *provider.Error, typed as the judges' are.
func (e *Engine) Complete(ctx context.Context, orgID, userID, model string, req provider.Request) (provider.Response, error) {
	res, perr := e.resolve(ctx, Request{OrgID: orgID, UserID: userID}, model)
	if perr != nil {
		return provider.Response{}, perr
	}
	req.Model = res.model
	if req.MaxTokens == 0 {
		req.MaxTokens = e.maxTokens()
	}
	return e.Client.Complete(ctx, res.target, req)
}
