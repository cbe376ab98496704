package local

import (
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/queue"
)

// Local settings of the evaluation queue: the cloud's semantics (redelivery after the
// visibility timeout, dead letters after MaxReceiveCount, partial batch failures, a
// concurrency cap) with a visibility timeout short enough to watch retries happen.
const (
	localVisibility  = 10 * time.Second
	localConcurrency = 4
)

// Evaluation runs the evaluation pipeline's consumer in-process: an in-memory queue (the
// dispatcher of workers.Stream sends to it) consumed by the same evaluator as the cloud's
// function, judging with j. Close the queue to stop it.
func Evaluation(d app.Deps, j evaluate.Judge, ec workers.EvalConfig) *queue.Local {
	q := queue.NewLocal(queue.Options{VisibilityTimeout: localVisibility, MaxReceiveCount: ec.MaxReceiveCount,
		MaxConcurrency: localConcurrency, Log: d.Log})
	q.Start(workers.Evaluator(d, j, ec).Handle)
	return q
}
