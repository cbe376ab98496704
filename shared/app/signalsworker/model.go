package signalsworker

import (
	"context"
	"encoding/json"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/signals"
)

// Model is the signals runs' model port over d: the configured model resolved to an
// integration of the run's user and asked through the provider client, as the judges do
// (shared/judge), under the egress rules of d's configuration.
func Model(d app.Deps) signals.Model {
	return providerModel{e: judge.New(d.Table, d.Secrets, nil, d.Config.AllowPrivateProviderEndpoints)}
}

type providerModel struct{ e *judge.Engine }

func (m providerModel) Complete(ctx context.Context, c signals.Completion) (signals.Answer, error) {
	req := provider.Request{SchemaName: "signals_findings"}
	for _, msg := range c.Messages {
		req.Messages = append(req.Messages, provider.Message{Role: msg.Role, Content: msg.Content})
	}
	if len(c.ResponseSchema) > 0 {
		if err := json.Unmarshal(c.ResponseSchema, &req.ResponseSchema); err != nil {
			return signals.Answer{}, provider.Errorf(provider.ClassConfiguration, "the findings' response schema is not a JSON object")
		}
	}
	resp, err := m.e.Complete(ctx, c.OrgID, c.UserID, c.ModelName, req)
	if err != nil {
		return signals.Answer{}, err
	}
	return signals.Answer{Text: resp.Content, Usage: signals.Usage{InputTokens: resp.Usage.InputTokens, OutputTokens: resp.Usage.OutputTokens}}, nil
}
