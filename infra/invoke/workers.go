package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/app/workers"
	"github.com/evalobs/evalapi/shared/evaluate"
	"github.com/evalobs/evalapi/shared/queue"
	"github.com/evalobs/evalapi/shared/queue/sqsqueue"
)

// Worker functions: their events are not HTTP requests. `make invoke FN=stream
// EVENT=events/workers/stream_trace_insert.json` feeds a DynamoDB stream event to the stream
// function's handler (the evaluation messages it sends are printed beside its answer, held
// by an in-memory queue), `FN=evaluator EVENT=events/workers/sqs_evaluate.json` an SQS
// event to the evaluator's (judging with evaluate.NoJudge: no provider is called).
var workerFunctions = []string{"stream", "evaluator"}

// WorkerResult is what a worker invocation prints: the handler's answer, and for the
// stream function the messages its dispatcher sent.
type WorkerResult struct {
	Response any               `json:"response"`
	Sent     []json.RawMessage `json:"sent,omitempty"`
}

// InvokeWorker runs a worker function's handler on raw.
func InvokeWorker(ctx context.Context, d app.Deps, fn string, raw []byte) (WorkerResult, error) {
	ctx, cancel := context.WithTimeout(ctx, FunctionTimeout)
	defer cancel()
	ec := workers.EvalConfig{QuietPeriod: evaluate.DefaultQuietPeriod, MaxReceiveCount: 5}
	switch fn {
	case "stream":
		var ev events.DynamoDBEvent
		if err := json.Unmarshal(raw, &ev); err != nil || len(ev.Records) == 0 {
			return WorkerResult{}, fmt.Errorf("not a DynamoDB stream event: %v", err)
		}
		q := queue.NewLocal(queue.Options{}) // never started: it only holds what is sent
		resp, err := workers.Stream(d, q, ec).HandleDynamoDBEvent(ctx, ev)
		if err != nil {
			return WorkerResult{}, err
		}
		out := WorkerResult{Response: resp}
		for _, b := range q.Pending() {
			out.Sent = append(out.Sent, json.RawMessage(b))
		}
		return out, nil
	case "evaluator":
		var ev events.SQSEvent
		if err := json.Unmarshal(raw, &ev); err != nil || len(ev.Records) == 0 {
			return WorkerResult{}, fmt.Errorf("not an SQS event: %v", err)
		}
		resp, err := sqsqueue.Handle(workers.Evaluator(d, evaluate.NoJudge{}, ec).Handle)(ctx, ev)
		return WorkerResult{Response: resp}, err
	}
	return WorkerResult{}, fmt.Errorf("unknown worker function %q", fn)
}
