package workers

import (
	"context"
	"errors"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/provider"
)

// ExperimentModels are the experiment runner's model and price ports over d: each row's
// model resolved to an integration of the job's creator and asked through the provider
// client, as the judges do (judge.Engine.Complete), and priced from that integration's
// model_prices. Scoring needs no port: the experiment's traces are written complete, and
// the stream's evaluation dispatcher scores every trace of an experiment with its scorers,
// unsampled (docs/EVALUATION-PIPELINE.md).
func ExperimentModels(d app.Deps) (exprun.Model, exprun.Prices) {
	e := judge.New(d.Table, d.Secrets, nil, d.Config.AllowPrivateProviderEndpoints)
	return rowModel{e}, rowPrices{e}
}

type rowModel struct{ e *judge.Engine }

// Complete asks the row's completion. Of the run settings, temperature and max_tokens are
// sent (docs/EXPERIMENTS.md); the provider's defaults serve the others.
func (m rowModel) Complete(ctx context.Context, c exprun.Completion) (exprun.Answer, error) {
	req := provider.Request{SchemaName: "answer"}
	for _, msg := range c.Messages {
		req.Messages = append(req.Messages, provider.Message{Role: msg.Role, Content: msg.Content})
	}
	if t, ok := number(c.Settings["temperature"]); ok {
		req.Temperature = &t
	}
	if n, ok := number(c.Settings["max_tokens"]); ok && n >= 1 {
		req.MaxTokens = int(n)
	}
	resp, err := m.e.Complete(ctx, c.OrgID, c.UserID, c.ModelName, req)
	if perr := (*provider.Error)(nil); errors.As(err, &perr) {
		// The row's trace records the provider's HTTP status (docs/EXPERIMENTS.md): the
		// runner reads it from a ModelError, which keeps the class and the message.
		return exprun.Answer{}, &exprun.ModelError{Type: string(perr.Class), Message: perr.Message(), Status: perr.Status}
	}
	if err != nil {
		return exprun.Answer{}, err
	}
	return exprun.Answer{Text: resp.Content, InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens,
		FinishReason: resp.FinishReason}, nil
}

type rowPrices struct{ e *judge.Engine }

func (p rowPrices) Price(ctx context.Context, orgID, userID, model string) (float64, float64, bool) {
	pr, ok, perr := p.e.PriceOf(ctx, orgID, userID, model)
	if perr != nil || !ok {
		return 0, 0, false
	}
	return pr.InputPerMillion, pr.OutputPerMillion, true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}
