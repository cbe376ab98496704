package signalscloud

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/evalobs/evalapi/shared/awscall"
	"github.com/evalobs/evalapi/shared/notify"
)

// The AWS calls the signals functions make (an asynchronous Lambda invocation, EventBridge
// PutEvents, and EventBridge Scheduler's four operations in scheduler.go) are signed requests
// written here rather than through their SDK clients: those clients would take the signals
// functions' bootstraps past the 10 MB cap, for a few operations each.

// rawAWS signs and sends one request to an AWS service endpoint of the region.
type rawAWS struct {
	signer *awscall.Signer
	base   string // tests: every service at this URL instead of its regional endpoint
}

func newRawAWS(cfg aws.Config) *rawAWS {
	return &rawAWS{signer: awscall.NewSigner(cfg.Region, cfg.Credentials)}
}

// endpoint is the regional endpoint of service (awscall.Signer.URL).
func (r *rawAWS) endpoint(service string) string {
	if r.base != "" {
		return r.base
	}
	return r.signer.URL(service)
}

func (r *rawAWS) do(ctx context.Context, service, method, rawURL string, headers map[string]string, body []byte) (int, []byte, error) {
	status, b, _, err := r.doHeader(ctx, service, method, rawURL, headers, body)
	return status, b, err
}

// doHeader is do with the response's header.
func (r *rawAWS) doHeader(ctx context.Context, service, method, rawURL string, headers map[string]string, body []byte) (int, []byte, http.Header, error) {
	resp, err := r.signer.Send(ctx, service, method, rawURL, headers, body)
	if err != nil {
		return 0, nil, nil, err
	}
	return resp.Status, resp.Body, resp.Header, nil
}

// invokeAsync is Lambda's Invoke with InvocationType Event: 202 when queued.
func (r *rawAWS) invokeAsync(ctx context.Context, functionARN string, payload []byte) error {
	// The function's name (the ARN's last field): the worker is in the caller's account and
	// region, and a name needs no escaping in the signed path.
	name := functionARN[strings.LastIndex(functionARN, ":")+1:]
	u := r.endpoint("lambda") + "/2015-03-31/functions/" + url.PathEscape(name) + "/invocations"
	status, body, err := r.do(ctx, "lambda", http.MethodPost, u, map[string]string{"X-Amz-Invocation-Type": "Event"}, payload)
	if err != nil {
		return fmt.Errorf("signals: invoking the worker: %w", err)
	}
	if status != http.StatusAccepted {
		return fmt.Errorf("signals: invoking the worker: status %d: %s", status, errorCode(body))
	}
	return nil
}

// EventBridge publishes events on an EventBridge bus: source EventSource, detail-type
// EventDetailType, the event as detail.
type EventBridge struct {
	raw *rawAWS
	Bus string // "" : the account's default bus
}

// Publish puts e on the bus (PutEvents, one entry).
func (p *EventBridge) Publish(ctx context.Context, e notify.Event) error {
	detail, err := json.Marshal(e)
	if err != nil {
		return err
	}
	bus := p.Bus
	if bus == "" {
		bus = "default"
	}
	body, _ := json.Marshal(map[string]any{"Entries": []map[string]any{{"EventBusName": bus, "Source": EventSource,
		"DetailType": EventDetailType, "Detail": string(detail)}}})
	status, resp, err := p.raw.do(ctx, "events", http.MethodPost, p.raw.endpoint("events")+"/",
		map[string]string{"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": "AWSEvents.PutEvents"}, body)
	if err != nil {
		return fmt.Errorf("signals: putting event %s: %w", e.ID, err)
	}
	if status != http.StatusOK {
		return fmt.Errorf("signals: putting event %s: status %d: %s", e.ID, status, errorCode(resp))
	}
	var out struct {
		FailedEntryCount int
		Entries          []struct{ ErrorCode string }
	}
	if err := json.Unmarshal(resp, &out); err != nil {
		return fmt.Errorf("signals: putting event %s: %w", e.ID, err)
	}
	if out.FailedEntryCount > 0 && len(out.Entries) > 0 {
		return fmt.Errorf("signals: putting event %s: %s", e.ID, out.Entries[0].ErrorCode)
	}
	return nil
}

// errorCode is the AWS error code of an error answer ("__type" or "code"), never its message.
func errorCode(body []byte) string {
	var e struct {
		Type string `json:"__type"`
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	if e.Type != "" {
		return e.Type
	}
	return e.Code
}
