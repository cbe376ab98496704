package dynamo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/store"
)

// CreateTable creates the table name in the shape def (on demand, with its indexes and
// stream), waits until it and its indexes are ACTIVE and enables TTL. A table that already
// exists is taken as it is, so the local host and the tests can call this on every start.
func CreateTable(ctx context.Context, client API, name string, def store.Schema) error {
	err := client.Call(ctx, "CreateTable", createInput(name, def), nil)
	if err != nil && !hasCode(err, "ResourceInUseException") {
		return fmt.Errorf("dynamo: create table %s: %w", name, err)
	}
	if err := waitActive(ctx, client, name); err != nil {
		return err
	}
	if def.TTLAttribute == "" {
		return nil
	}
	return enableTTL(ctx, client, name, def.TTLAttribute)
}

// DeleteTable deletes the table name (tests clean up with it).
func DeleteTable(ctx context.Context, client API, name string) error {
	if err := client.Call(ctx, "DeleteTable", map[string]string{"TableName": name}, nil); err != nil {
		return fmt.Errorf("dynamo: delete table %s: %w", name, err)
	}
	return nil
}

type object = map[string]any

func createInput(name string, def store.Schema) object {
	var attrs []object
	defined := map[string]bool{}
	for _, a := range def.KeyAttributes() {
		if a == "" || defined[a] {
			continue
		}
		defined[a] = true
		attrs = append(attrs, object{"AttributeName": a, "AttributeType": "S"})
	}
	in := object{
		"TableName":            name,
		"BillingMode":          "PAY_PER_REQUEST",
		"KeySchema":            keySchema(def.PartitionKey, def.SortKey),
		"AttributeDefinitions": attrs,
	}
	if len(def.Indexes) > 0 {
		var gsis []object
		for _, ix := range def.Indexes {
			gsis = append(gsis, object{
				"IndexName":  ix.Name,
				"KeySchema":  keySchema(ix.PartitionKey, ix.SortKey),
				"Projection": object{"ProjectionType": "ALL"},
			})
		}
		in["GlobalSecondaryIndexes"] = gsis
	}
	if def.StreamView != "" {
		in["StreamSpecification"] = object{"StreamEnabled": true, "StreamViewType": def.StreamView}
	}
	return in
}

func keySchema(pk, sk string) []object {
	ks := []object{{"AttributeName": pk, "KeyType": "HASH"}}
	if sk != "" {
		ks = append(ks, object{"AttributeName": sk, "KeyType": "RANGE"})
	}
	return ks
}

// tableDescription is the part of DescribeTable's answer waitActive reads.
type tableDescription struct {
	Table *struct {
		TableStatus            string
		GlobalSecondaryIndexes []struct{ IndexStatus string }
	}
}

// waitActive polls until the table and every index are ACTIVE. (The SDK's waiter starts at
// 20 s between polls, far too slow for emulators that are ready at once.)
func waitActive(ctx context.Context, client API, name string) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	delay := 50 * time.Millisecond
	for {
		var out tableDescription
		err := client.Call(ctx, "DescribeTable", map[string]string{"TableName": name}, &out)
		switch {
		case hasCode(err, "ResourceNotFoundException"):
			// Just created: not yet visible to reads everywhere.
		case err != nil:
			return fmt.Errorf("dynamo: describe table %s: %w", name, err)
		case active(out):
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("dynamo: table %s not active: %w", name, ctx.Err())
		case <-time.After(delay):
		}
		delay = min(2*delay, 2*time.Second)
	}
}

func active(d tableDescription) bool {
	if d.Table == nil || d.Table.TableStatus != "ACTIVE" {
		return false
	}
	for _, ix := range d.Table.GlobalSecondaryIndexes {
		if ix.IndexStatus != "ACTIVE" {
			return false
		}
	}
	return true
}

func enableTTL(ctx context.Context, client API, name, attr string) error {
	var out struct {
		TimeToLiveDescription *struct{ AttributeName, TimeToLiveStatus string }
	}
	if err := client.Call(ctx, "DescribeTimeToLive", map[string]string{"TableName": name}, &out); err != nil {
		return fmt.Errorf("dynamo: describe TTL of %s: %w", name, err)
	}
	if d := out.TimeToLiveDescription; d != nil && d.AttributeName == attr &&
		(d.TimeToLiveStatus == "ENABLED" || d.TimeToLiveStatus == "ENABLING") {
		return nil
	}
	err := client.Call(ctx, "UpdateTimeToLive", object{
		"TableName":               name,
		"TimeToLiveSpecification": object{"AttributeName": attr, "Enabled": true},
	}, nil)
	if err != nil {
		return fmt.Errorf("dynamo: enable TTL on %s.%s: %w", name, attr, err)
	}
	return nil
}

// hasCode reports whether err is DynamoDB's refusal with code.
func hasCode(err error, code string) bool {
	var api interface{ ErrorCode() string }
	return errors.As(err, &api) && api.ErrorCode() == code
}
