// Package judge runs LLM-judge scorers on one record: it builds the prompt of the scorer
// version (a decision question, a chain-poll template, or a preset of the specification's
// scorer names), resolves the scorer's model to a provider integration of the user, asks
// num_judges judges in parallel through shared/provider, parses their answers and
// aggregates them by output type. See docs/EVALUATION.md.
//
// Failures are data: Judge never returns a Go error; an Outcome carries either a value or
// an error type of the records' vocabulary (rate_limit_error, llm_api_error,
// credentials_error, data_validation_error, configuration_error) with Retryable telling the
// caller whether to put the work back on its queue.
package judge

import (
	"context"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// Completer is the provider client; *provider.Client implements it.
type Completer interface {
	Complete(ctx context.Context, t provider.Target, r provider.Request) (provider.Response, error)
}

// Engine judges records. Its fields are read-only once it is in use; it is safe for
// concurrent use.
type Engine struct {
	Table store.Table
	// Secrets reads integration credentials; a secrets.Cached store keeps them per warm
	// instance. Fresh, when set, is the uncached store read again when a cached value's
	// revision does not match its record (the integration was replaced since).
	Secrets secrets.Store
	Fresh   secrets.Store
	Client  Completer
	// VendorBaseURL is the model-vendor API base; empty is provider.DefaultVendorBaseURL.
	VendorBaseURL string
	// MaxTokens bounds each judge's answer; zero is 1024.
	MaxTokens int
}

// New returns an engine over the table, reading credentials through cached (per warm
// instance) and fresh (uncached, on a revision mismatch; may be nil), calling providers
// through a provider.Client that dials only public addresses (and loopback with
// allowLoopback: the local host and tests).
func New(t store.Table, cached, fresh secrets.Store, allowLoopback bool) *Engine {
	return &Engine{Table: t, Secrets: cached, Fresh: fresh, Client: provider.New(provider.Options{AllowLoopback: allowLoopback})}
}

// Request is one judgment: a scorer (with the version to run and, optionally, its entry
// in the log stream's metric settings) on one record's content.
type Request struct {
	OrgID string
	// UserID is whose integrations are used (see docs/EVALUATION.md: the user who last
	// changed the metric settings).
	UserID  string
	Scorer  store.Scorer
	Version *store.ScorerVersion // nil: Scorer.LatestVersion
	Config  *store.ScorerConfig  // the metric-settings entry, nil when there is none
	Content Content
	// Fields are values a custom header mapping may send (project_id, run_id, ...);
	// organization_id, user_id and scorer_id are added.
	Fields map[string]string
}

// Content is what the judges read. Empty parts are left out of the prompt.
type Content struct {
	Input       string   // the record's input (prompt, user message)
	Output      string   // the record's output (response)
	Context     []string // retrieved documents
	Tools       string   // the tools offered (JSON text)
	ToolCalls   string   // the tool calls made (JSON text)
	GroundTruth string   // the expected output (dataset_output), when known
}

// Outcome is the result of one judgment.
type Outcome struct {
	// Value is bool (boolean), float64 (boolean_probability, discrete, count, percentage and
	// other numbers: the mean), string (categorical: the majority label; freeform) or
	// []string (multilabel); nil on error.
	Value any
	// Probability is the share of judges answering yes (boolean) or the mean probability
	// (boolean_probability); nil for other output types.
	Probability *float64
	Explanation string
	OutputType  string
	Judges      int // judges asked

	// ErrorType is "" on success, else a provider.Class value.
	ErrorType    string
	ErrorMessage string
	Retryable    bool
	RetryAfter   time.Duration

	Model         string // the model asked
	IntegrationID string
	Usage         provider.Usage // all judges, retries and failed asks included
	// CostUSD prices Usage with the integration's model_prices; nil when the model has no price.
	CostUSD *float64
}

// Failed reports whether the outcome is an error.
func (o Outcome) Failed() bool { return o.ErrorType != "" }

func failure(err *provider.Error) Outcome {
	return Outcome{ErrorType: string(err.Class), ErrorMessage: err.Message(), Retryable: err.Retryable, RetryAfter: err.RetryAfter}
}

// Judge runs the request's scorer. It returns when every judge has answered or failed.
func (e *Engine) Judge(ctx context.Context, r Request) Outcome {
	p, perr := planFor(r)
	if perr != nil {
		return failure(perr)
	}
	res, perr := e.resolve(ctx, r, p.model)
	if perr != nil {
		o := failure(perr)
		o.OutputType, o.Model = p.outputType, p.model
		return o
	}
	msgs := p.messages(r.Content)
	req := provider.Request{Model: res.model, Messages: msgs, ResponseSchema: p.schema, SchemaName: "judgment",
		MaxTokens: e.maxTokens(), Fields: fields(r)}
	if p.judges > 1 {
		t := 1.0 // independent judges must be able to disagree
		req.Temperature = &t
	}
	answers := make([]answer, p.judges)
	var wg sync.WaitGroup
	for i := range answers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.ask(ctx, res.target, req, p)
		}()
	}
	wg.Wait()

	o := Outcome{OutputType: p.outputType, Judges: p.judges, Model: res.model, IntegrationID: res.integrationID}
	for _, a := range answers {
		o.Usage = o.Usage.Add(a.usage)
	}
	o.CostUSD = res.price.cost(o.Usage)
	if err := worst(answers); err != nil {
		f := failure(err)
		f.OutputType, f.Judges, f.Model, f.IntegrationID, f.Usage, f.CostUSD = o.OutputType, o.Judges, o.Model, o.IntegrationID, o.Usage, o.CostUSD
		return f
	}
	o.Value, o.Probability, o.Explanation = p.aggregate(answers)
	return o
}

func (e *Engine) maxTokens() int {
	if e.MaxTokens > 0 {
		return e.MaxTokens
	}
	return 1024
}

func fields(r Request) map[string]string {
	out := make(map[string]string, len(r.Fields)+3)
	for k, v := range r.Fields {
		out[k] = v
	}
	out["organization_id"], out["user_id"], out["scorer_id"] = r.OrgID, r.UserID, r.Scorer.ID
	return out
}

// answer is one judge's parsed answer, or its failure.
type answer struct {
	verdict
	err   *provider.Error
	usage provider.Usage
}

// ask asks one judge; an answer that cannot be read is asked once more.
func (e *Engine) ask(ctx context.Context, t provider.Target, req provider.Request, p *plan) answer {
	var a answer
	for try := 1; try <= 2; try++ {
		resp, err := e.Client.Complete(ctx, t, req)
		a.usage = a.usage.Add(resp.Usage)
		if err != nil {
			pe := provider.AsError(err)
			if pe.Class == provider.ClassDataValidation && try == 1 {
				continue
			}
			a.err = pe
			return a
		}
		v, ok := p.parse(resp.Content)
		if ok {
			a.verdict, a.err = v, nil
			return a
		}
		a.err = provider.Errorf(provider.ClassDataValidation, "the judge's answer could not be read as the %s %q twice", p.outputType, p.template.ValueFieldName)
	}
	return a
}

// worst picks the error an outcome reports when judges failed: a judgment is recorded only
// when every judge answered (a partial vote would bias it). A failure that will not go away
// by retrying wins over one that may; among retryable ones, the longest Retry-After.
func worst(answers []answer) *provider.Error {
	var w *provider.Error
	for _, a := range answers {
		switch {
		case a.err == nil:
		case w == nil:
			w = a.err
		case w.Retryable && !a.err.Retryable:
			w = a.err
		case w.Retryable == a.err.Retryable && a.err.RetryAfter > w.RetryAfter:
			w = a.err
		}
	}
	return w
}
