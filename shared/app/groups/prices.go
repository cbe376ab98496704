package groups

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/judge"
)

// judgePrices tells the metric settings whether a USD budget's judges have a price: the
// judge's own resolution (judge.Engine.PriceOf), so the check and the judgments agree.
type judgePrices struct{ e *judge.Engine }

func newJudgePrices(d app.Deps) judgePrices {
	return judgePrices{e: judge.New(d.Table, d.Secrets, nil, d.Config.AllowPrivateProviderEndpoints)}
}

func (p judgePrices) HasPrice(ctx context.Context, orgID, userID, model string) (bool, string, error) {
	_, ok, perr := p.e.PriceOf(ctx, orgID, userID, model)
	switch {
	case perr != nil && perr.Retryable:
		return false, "", errors.New("read integrations: " + perr.Message())
	case perr != nil:
		return false, perr.Message(), nil
	case !ok:
		return false, "the model has no price", nil
	}
	return true, "", nil
}
