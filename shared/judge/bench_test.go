package judge_test

import (
	"context"
	"testing"

	"github.com/evalobs/evalapi/shared/judge"
	"github.com/evalobs/evalapi/shared/provider"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// instant answers every judge at once, in memory: what the judge itself costs, without
// the provider and the network.
type instant struct{}

func (instant) Complete(context.Context, provider.Target, provider.Request) (provider.Response, error) {
	return provider.Response{Content: `{"explanation":"The answer is right.","rating":true}`,
		Usage: provider.Usage{InputTokens: 200, OutputTokens: 20}}, nil
}

// BenchmarkJudge is the judge's own CPU per judgment (num_judges 1 and 3): the integration
// read (embedded table), the credential read (cached secrets), the prompt, parsing and
// aggregation; the provider answers instantly in memory.
func BenchmarkJudge(b *testing.B) {
	for _, judges := range []int64{1, 3} {
		b.Run(map[int64]string{1: "judges=1", 3: "judges=3"}[judges], func(b *testing.B) {
			w := newWorldB(b)
			w.custom("https://models.example.com/v1", "judge-1")
			w.engine.Client = instant{}
			w.engine.Secrets = secrets.Cached(w.sec, 0)
			req := w.request(decision("boolean", "Is the answer correct?", store.AnswerOptions{}, judges, "judge-1"))
			req.Content.Output = "The capital of France is Paris, a city of about two million people."
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if o := w.engine.Judge(context.Background(), req); o.Failed() {
					b.Fatalf("%+v", o)
				}
			}
		})
	}
}

var _ judge.Completer = instant{}
