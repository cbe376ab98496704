package purge_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/evalobs/evalapi/shared/app/local"
	"github.com/evalobs/evalapi/shared/purge"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/store/embedded"
	"github.com/evalobs/evalapi/shared/stream"
)

// streamEvent is a DynamoDB stream batch as Lambda delivers it: the removal of a dataset's
// META (DATASET_ID), a row update and an insert of something else.
const streamEvent = `{"Records": [
 {"eventID": "1", "eventName": "REMOVE", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
  "dynamodb": {"Keys": {"PK": {"S": "DATASET#DATASET_ID"}, "SK": {"S": "META"}},
   "OldImage": {"PK": {"S": "DATASET#DATASET_ID"}, "SK": {"S": "META"}, "entity": {"S": "dataset"},
    "org_id": {"S": "org"}, "version": {"N": "1"}, "column_names": {"L": [{"S": "q"}]}},
   "SequenceNumber": "111", "SizeBytes": 120, "StreamViewType": "NEW_AND_OLD_IMAGES"}},
 {"eventID": "2", "eventName": "MODIFY", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
  "dynamodb": {"Keys": {"PK": {"S": "DATASET#other"}, "SK": {"S": "ROW#0000000001"}},
   "OldImage": {"PK": {"S": "DATASET#other"}, "SK": {"S": "ROW#0000000001"}, "entity": {"S": "dataset_row"}},
   "NewImage": {"PK": {"S": "DATASET#other"}, "SK": {"S": "ROW#0000000001"}, "entity": {"S": "dataset_row"}},
   "SequenceNumber": "222", "SizeBytes": 80, "StreamViewType": "NEW_AND_OLD_IMAGES"}},
 {"eventID": "3", "eventName": "INSERT", "eventSource": "aws:dynamodb", "awsRegion": "us-east-1",
  "dynamodb": {"Keys": {"PK": {"S": "USER#u"}, "SK": {"S": "META"}},
   "NewImage": {"PK": {"S": "USER#u"}, "SK": {"S": "META"}, "entity": {"S": "user"}},
   "SequenceNumber": "333", "SizeBytes": 40, "StreamViewType": "NEW_AND_OLD_IMAGES"}}
]}`

func decodeEvent(t *testing.T, datasetID string) events.DynamoDBEvent {
	t.Helper()
	var ev events.DynamoDBEvent
	if err := json.Unmarshal([]byte(strings.ReplaceAll(streamEvent, "DATASET_ID", datasetID)), &ev); err != nil {
		t.Fatal(err)
	}
	return ev
}

// TestHandleDynamoDBEvent runs a stream batch through the Lambda handler: the dataset it
// reports deleted is purged, and a failure is answered as a batch item failure naming the
// record's sequence number.
func TestHandleDynamoDBEvent(t *testing.T) {
	db, err := embedded.OpenMemory()
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := newDataset(t, db, "org", 40)
	deleteRecords(t, db, "org", d)
	ev := decodeEvent(t, d.ID)

	broken := &failingTable{Table: db, fail: map[string]bool{d.ID: true}}
	resp, err := stream.NewConsumer(nil, purge.New(broken, nil)).HandleDynamoDBEvent(t.Context(), ev)
	want := []events.DynamoDBBatchItemFailure{{ItemIdentifier: "111"}}
	if err != nil || !reflect.DeepEqual(resp.BatchItemFailures, want) {
		t.Fatalf("failing purge: %+v, %v; want failures %+v", resp, err, want)
	}

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute) // a Lambda deadline
	defer cancel()
	resp, err = stream.NewConsumer(nil, purge.New(db, nil)).HandleDynamoDBEvent(ctx, ev)
	if err != nil || resp.BatchItemFailures == nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("purge: %+v, %v; want an empty failure list", resp, err)
	}
	if n := partitionSize(t, db, d.ID); n != 0 {
		t.Fatalf("%d items of the deleted dataset left", n)
	}
	out, _ := json.Marshal(resp)
	if string(out) != `{"batchItemFailures":[]}` {
		t.Errorf("response JSON %s", out)
	}
}

// TestFromDynamoDB converts stream images into items of the store's vocabulary.
func TestFromDynamoDB(t *testing.T) {
	tests := []struct {
		name, image string
		want        store.Item
	}{
		{"scalars", `{"PK": {"S": "A"}, "n": {"N": "42"}, "f": {"N": "1.5"}, "b": {"BOOL": true}, "z": {"NULL": true}}`,
			store.Item{"PK": "A", "n": int64(42), "f": 1.5, "b": true, "z": nil}},
		{"nested", `{"l": {"L": [{"S": "x"}, {"N": "2"}, {"M": {"k": {"S": "v"}}}]}}`,
			store.Item{"l": []any{"x", int64(2), map[string]any{"k": "v"}}}},
		{"sets and binary", `{"ss": {"SS": ["a", "b"]}, "ns": {"NS": ["1"]}, "bin": {"B": "AQI="}}`,
			store.Item{"ss": []any{"a", "b"}, "ns": []any{int64(1)}, "bin": "AQI="}},
	}
	for _, tt := range tests {
		var img map[string]events.DynamoDBAttributeValue
		if err := json.Unmarshal([]byte(tt.image), &img); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		r := stream.FromDynamoDB(events.DynamoDBEventRecord{Change: events.DynamoDBStreamRecord{SequenceNumber: "9", NewImage: img}})
		if r.ID != "9" || r.Old != nil || !reflect.DeepEqual(r.New, tt.want) {
			t.Errorf("%s: %+v\nwant New %v", tt.name, r, tt.want)
		}
	}
}

// blockingTable holds every Query until release is closed.
type blockingTable struct {
	store.Table
	release chan struct{}
}

func (b *blockingTable) Query(ctx context.Context, q store.Query) (store.Page, error) {
	<-b.release
	return b.Table.Query(ctx, q)
}

// TestLocal runs the worker beside an embedded store as the local host does: the deletion
// returns while the purge is still held back, and the purge then empties the dataset.
func TestLocal(t *testing.T) {
	var s *local.Stream
	db, err := embedded.Open(filepath.Join(t.TempDir(), "local.db"), embedded.Options{
		OnCommit: func(cs []embedded.Change) { s.OnCommit(cs) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	held := &blockingTable{Table: db, release: make(chan struct{})}
	s = local.NewStream(stream.NewConsumer(nil, purge.New(held, nil)), nil)
	defer s.Close()

	a, b, kept := newDataset(t, db, "org", 300), newDataset(t, db, "org", 3), newDataset(t, db, "org", 3)
	deleted, err := store.DeleteDatasets(t.Context(), db, "org", []string{a.ID, b.ID})
	if err != nil || len(deleted) != 2 {
		t.Fatalf("delete: %v, %v", deleted, err)
	}
	if partitionSize(t, db, a.ID) == 0 {
		t.Fatal("the rows are gone before the purge was let through: the deletion waited for it")
	}
	close(held.release)
	s.Wait()
	for _, d := range []store.Dataset{a, b} {
		if n := partitionSize(t, db, d.ID); n != 0 {
			t.Errorf("%d items of deleted dataset %s left", n, d.ID)
		}
	}
	if n := partitionSize(t, db, kept.ID); n != 1+2*3+1+2*2 {
		t.Errorf("the kept dataset has %d items", n)
	}
}
