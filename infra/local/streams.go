package main

import (
	"os"
	"sync"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/exprun"
	"github.com/evalobs/evalapi/shared/store/embedded"
)

// streams fans the embedded store's commits out to stream workers: the local stand-in for
// the table's DynamoDB stream, which the worker function reads in the cloud. Workers run
// in commit order on the goroutine that delivers the commit, so one must not block long.
type streams struct {
	mu      sync.RWMutex
	workers []func([]embedded.Change)
}

// subscribe adds a worker; it sees the commits made from then on.
func (s *streams) subscribe(w func([]embedded.Change)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.workers = append(s.workers, w)
}

// deliver is the store's OnCommit hook.
func (s *streams) deliver(changes []embedded.Change) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, w := range s.workers {
		w(changes)
	}
}

// streamWorkers starts the stream workers the local host runs in-process, built on its
// deps: the same code that the worker function runs on the table's stream in the cloud.
// A new worker plugs in here. stop ends them; it must run before the store closes. They
// run only on the embedded store: with DYNAMODB_ENDPOINT set, nothing reads the stream.
func streamWorkers(d app.Deps) (handlers []func([]embedded.Change), stop func()) {
	// the table's stream consumer: the purge of deleted datasets, and whatever else
	// workers.Stream hands the stream to.
	// The evaluation pipeline runs in-process too: the dispatcher sends to an in-memory queue
	// that the evaluator consumes (EVAL_QUIET_PERIOD and EVAL_MAX_RECEIVE_COUNT apply).
	ec, err := workers.ReadEvalConfig(os.Getenv)
	if err != nil {
		d.Log.Warn("evaluation settings ignored", "error", err.Error())
	}
	q := local.Evaluation(d, workers.LLMJudge(d), ec)
	s := local.NewStream(workers.Stream(d, q, ec), d.Log)
	return []func([]embedded.Change){s.OnCommit}, func() { s.Close(); q.Close() }
}

// exprunWorker is the experiment runner of the local host: rows asked through the job
// creator's integrations and priced from them; the stream's dispatcher scores the traces.
func exprunWorker(d app.Deps) *exprun.Worker {
	model, prices := workers.ExperimentModels(d)
	return workers.ExperimentRunner(d, model, nil, prices)
}
