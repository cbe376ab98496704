package exprun

import (
	"context"
	"sync"

	"github.com/aws/aws-lambda-go/events"
)

// HandleSQS runs a batch of chunk messages at once and reports the ones that failed, so
// that SQS delivers only those again (ReportBatchItemFailures); past the queue's
// maxReceiveCount they go to its dead-letter queue.
func (w *Worker) HandleSQS(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	var resp events.SQSEventResponse
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, rec := range ev.Records {
		wg.Go(func() {
			if err := w.HandleChunk(ctx, []byte(rec.Body)); err != nil {
				w.log().ErrorContext(ctx, "experiment chunk failed", "message_id", rec.MessageId, "error", err.Error())
				mu.Lock()
				resp.BatchItemFailures = append(resp.BatchItemFailures, events.SQSBatchItemFailure{ItemIdentifier: rec.MessageId})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return resp, nil
}
