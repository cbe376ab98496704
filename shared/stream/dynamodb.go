package stream

import (
	"context"
	"encoding/base64"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/store"
)

// deadlineMargin is kept free at the end of an invocation, so that work cut short still
// reports its record as failed instead of the whole batch timing out.
const deadlineMargin = 3 * time.Second

// HandleDynamoDBEvent is the Lambda handler of the stream. It answers with the records it
// could not finish as batch item failures (the function's event source mapping enables
// ReportBatchItemFailures), so Lambda retries from the first of them and not the whole
// batch; the records after it are delivered again too, which handlers tolerate.
func (c *Consumer) HandleDynamoDBEvent(ctx context.Context, ev events.DynamoDBEvent) (events.DynamoDBEventResponse, error) {
	if deadline, ok := ctx.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline.Add(-deadlineMargin))
		defer cancel()
	}
	records := make([]Record, len(ev.Records))
	for i, r := range ev.Records {
		records[i] = FromDynamoDB(r)
	}
	resp := events.DynamoDBEventResponse{BatchItemFailures: []events.DynamoDBBatchItemFailure{}}
	for _, id := range c.Handle(ctx, records) {
		resp.BatchItemFailures = append(resp.BatchItemFailures, events.DynamoDBBatchItemFailure{ItemIdentifier: id})
	}
	return resp, nil
}

// FromDynamoDB converts a DynamoDB stream record: its sequence number becomes the ID, its
// images the items (absent images stay nil).
func FromDynamoDB(r events.DynamoDBEventRecord) Record {
	return Record{ID: r.Change.SequenceNumber, Old: image(r.Change.OldImage), New: image(r.Change.NewImage)}
}

func image(av map[string]events.DynamoDBAttributeValue) store.Item {
	if av == nil {
		return nil
	}
	it := make(store.Item, len(av))
	for k, v := range av {
		it[k] = value(v)
	}
	return it
}

// value converts an attribute value to the store's vocabulary. It never fails, so that a
// record cannot block the stream over an attribute the worker does not read: the types the
// service never writes (binary, sets) become strings and lists, an unreadable number nil.
func value(av events.DynamoDBAttributeValue) any {
	switch av.DataType() {
	case events.DataTypeString:
		return av.String()
	case events.DataTypeNumber:
		n, err := store.ParseNumber(av.Number())
		if err != nil {
			return nil
		}
		return n
	case events.DataTypeBoolean:
		return av.Boolean()
	case events.DataTypeList:
		l := av.List()
		out := make([]any, len(l))
		for i, e := range l {
			out[i] = value(e)
		}
		return out
	case events.DataTypeMap:
		m := av.Map()
		out := make(map[string]any, len(m))
		for k, e := range m {
			out[k] = value(e)
		}
		return out
	case events.DataTypeBinary:
		return base64.StdEncoding.EncodeToString(av.Binary())
	case events.DataTypeStringSet:
		return stringList(av.StringSet())
	case events.DataTypeNumberSet:
		var out []any
		for _, s := range av.NumberSet() {
			if n, err := store.ParseNumber(s); err == nil {
				out = append(out, n)
			}
		}
		return out
	case events.DataTypeBinarySet:
		var out []any
		for _, b := range av.BinarySet() {
			out = append(out, base64.StdEncoding.EncodeToString(b))
		}
		return out
	}
	return nil
}

func stringList(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}
