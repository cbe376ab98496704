package exprun

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/shared/awscall"
)

// SQS sends chunk messages to an SQS queue with SendMessageBatch over the JSON protocol,
// signed with Signature Version 4 (the SDK's signer, as shared/payload's S3 client does)
// rather than linking the SQS client. Entries SQS reports failed are sent again, a few times.
type SQS struct {
	QueueURL    string
	Region      string
	Credentials aws.CredentialsProvider
	Client      *http.Client // default: awscall.DefaultHTTP
}

// sqsBatch is SendMessageBatch's limit of entries.
const sqsBatch = 10

// sqsAttempts bounds the sends of entries SQS reported failed.
const sqsAttempts = 4

type sqsEntry struct {
	ID          string `json:"Id"`
	MessageBody string `json:"MessageBody"`
}

type sqsResult struct {
	Failed []struct {
		ID          string `json:"Id"`
		Code        string `json:"Code"`
		SenderFault bool   `json:"SenderFault"`
	} `json:"Failed"`
}

// Send sends bodies, ten per request; it fails when any is still unsent after the retries.
func (q *SQS) Send(ctx context.Context, bodies [][]byte) error {
	for i := 0; i < len(bodies); i += sqsBatch {
		pending := map[string]string{}
		for k, b := range bodies[i:min(i+sqsBatch, len(bodies))] {
			pending[strconv.Itoa(k)] = string(b)
		}
		for attempt := 1; len(pending) > 0; attempt++ {
			if attempt > sqsAttempts {
				return fmt.Errorf("sqs: %d messages unsent after %d attempts", len(pending), sqsAttempts)
			}
			failed, err := q.sendBatch(ctx, pending)
			if err != nil {
				return err
			}
			for id := range pending {
				if !failed[id] {
					delete(pending, id)
				}
			}
			if len(pending) > 0 {
				time.Sleep(time.Duration(attempt*50) * time.Millisecond)
			}
		}
	}
	return nil
}

func (q *SQS) sendBatch(ctx context.Context, msgs map[string]string) (map[string]bool, error) {
	entries := make([]sqsEntry, 0, len(msgs))
	for id, b := range msgs {
		entries = append(entries, sqsEntry{ID: id, MessageBody: b})
	}
	body, err := json.Marshal(map[string]any{"QueueUrl": q.QueueURL, "Entries": entries})
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(q.QueueURL)
	if err != nil {
		return nil, fmt.Errorf("sqs: queue url: %w", err)
	}
	signer := &awscall.Signer{Region: q.Region, Credentials: q.Credentials, HTTP: q.Client}
	resp, err := signer.Post(ctx, "sqs", u.Scheme+"://"+u.Host+"/", map[string]string{
		"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.SendMessageBatch"}, body)
	if err != nil {
		return nil, fmt.Errorf("sqs: send: %w", err)
	}
	data := resp.Body
	if resp.Status != http.StatusOK {
		return nil, fmt.Errorf("sqs: send: SQS answered %d", resp.Status) // the body may name internals
	}
	var res sqsResult
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, fmt.Errorf("sqs: send: %w", err)
	}
	failed := map[string]bool{}
	for _, f := range res.Failed {
		if f.SenderFault {
			return nil, fmt.Errorf("sqs: send: message refused (%s)", f.Code)
		}
		failed[f.ID] = true
	}
	return failed, nil
}
