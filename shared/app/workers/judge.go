package workers

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/fixed"
	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/store"
)

// LLMJudge is the evaluator's judge: shared/judge's engine over d's table and (cached)
// secrets, calling providers through the egress rules of d's configuration (loopback and
// private addresses only where the configuration allows them, as for integrations).
func LLMJudge(d app.Deps) evaluate.Judge {
	return llmJudge{e: judge.New(d.Table, d.Secrets, nil, d.Config.AllowPrivateProviderEndpoints), t: d.Table}
}

// llmJudge adapts judge.Engine to the evaluator's port: it reads the scorer (the engine
// takes it as read), turns the record's content into the judges' text, and the outcome
// into a verdict.
type llmJudge struct {
	e *judge.Engine
	t store.Table
}

func (j llmJudge) Judge(ctx context.Context, t evaluate.Task) evaluate.Verdict {
	sc, err := store.GetScorer(ctx, j.t, t.OrgID, t.ScorerID)
	if err != nil {
		// A deleted scorer is a configuration error; a store failure comes back later.
		v := evaluate.Verdict{ErrorType: evaluate.ErrConfiguration, ErrorMessage: "the scorer could not be read"}
		if !isNotFound(err) {
			v.ErrorType, v.Retryable = evaluate.ErrLLMAPI, true
		}
		return v
	}
	var version *store.ScorerVersion
	if t.ScorerVersion > 0 {
		v, err := store.GetScorerVersion(ctx, j.t, t.ScorerID, t.ScorerVersion)
		if err != nil && !isNotFound(err) {
			return evaluate.Verdict{ErrorType: evaluate.ErrLLMAPI, ErrorMessage: "the scorer version could not be read", Retryable: true}
		}
		if err == nil {
			version = &v
		}
	}
	cfg := t.Scorer
	o := j.e.Judge(ctx, judge.Request{OrgID: t.OrgID, UserID: t.UserID, Scorer: sc, Version: version, Config: &cfg,
		Content: judgeContent(t.Content),
		Fields:  map[string]string{"project_id": t.ProjectID, "run_id": t.LogStreamID, "record_id": t.RecordID}})
	return verdictOf(o)
}

// judgeContent is the text the judges read of a record.
func judgeContent(c evaluate.Content) judge.Content {
	out := judge.Content{Input: c.Input.Text(), Output: c.Output.Text(), Tools: c.Tools.Text()}
	if !c.Documents.IsNull() {
		var docs []struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(c.Documents, &docs) == nil {
			for _, d := range docs {
				out.Context = append(out.Context, d.Content)
			}
		} else {
			out.Context = []string{c.Documents.Text()}
		}
	}
	return out
}

// verdictOf is the evaluator's verdict of a judge outcome.
func verdictOf(o judge.Outcome) evaluate.Verdict {
	v := evaluate.Verdict{Explanation: o.Explanation, ErrorType: o.ErrorType, ErrorMessage: o.ErrorMessage,
		Retryable: o.Retryable, RetryAfter: o.RetryAfter,
		Usage: evaluate.Usage{InputTokens: o.Usage.InputTokens, OutputTokens: o.Usage.OutputTokens}}
	if o.CostUSD != nil {
		if c, err := fixed.FromFloat(*o.CostUSD); err == nil {
			v.CostUSD = &c
		}
	}
	if o.Failed() {
		return v
	}
	switch x := o.Value.(type) {
	case bool:
		v.Value.Bool = &x
	case float64:
		n, err := fixed.FromFloat(x)
		if err != nil {
			return evaluate.Verdict{ErrorType: evaluate.ErrDataValidation, ErrorMessage: "the judges' value is not a storable number", Usage: v.Usage, CostUSD: v.CostUSD}
		}
		v.Value.Number = &n
	case string:
		v.Value.Label = &x
	case []string:
		l := strings.Join(x, ",")
		v.Value.Label = &l
	default:
		return evaluate.Verdict{ErrorType: evaluate.ErrDataValidation, ErrorMessage: "the judges gave no value", Usage: v.Usage, CostUSD: v.CostUSD}
	}
	return v
}

func isNotFound(err error) bool { return errors.Is(err, store.ErrNotFound) }
