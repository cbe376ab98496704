package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambdacontext"

	"github.com/evalobs/evalapi/shared/app"
)

// FunctionTimeout is the Lambda timeout of the functions (Globals in template.yaml); an
// invocation gets the same deadline here.
const FunctionTimeout = 15 * time.Second

// Invoke runs g's Lambda handler, built as its main builds it, on one event (the JSON of an
// events.APIGatewayV2HTTPRequest). An error is what Lambda would report as a failed
// invocation (API Gateway answers it with a 5xx), not an error status of the API.
func Invoke(ctx context.Context, d app.Deps, g app.Group, raw []byte) (events.APIGatewayV2HTTPResponse, error) {
	event, err := DecodeEvent(raw)
	if err != nil {
		return events.APIGatewayV2HTTPResponse{}, err
	}
	handler := app.Proxy(app.NewRouter(WithWorkers(d), g.Register))

	ctx, cancel := context.WithTimeout(ctx, FunctionTimeout)
	defer cancel()
	ctx = lambdacontext.NewContext(ctx, &lambdacontext.LambdaContext{
		AwsRequestID:       rand.Text(),
		InvokedFunctionArn: "arn:aws:lambda:us-east-1:000000000000:function:evalapi-" + g.Name,
	})
	resp, err := handler(ctx, event)
	if err != nil {
		return resp, fmt.Errorf("function %s: %w", g.Name, err)
	}
	return resp, nil
}

// WithWorkers gives d the worker ports the cloud's functions have. The signals worker is
// another function: an on-demand run is queued, as the API function leaves it, and no
// worker runs it here.
func WithWorkers(d app.Deps) app.Deps {
	if d.Signals.StartWorker == nil {
		d.Signals.StartWorker = func(context.Context, []byte) error { return nil }
	}
	return d
}

// DecodeEvent parses an HTTP API v2 event and refuses files that are not one (a REST API
// v1 event, say), which the adapter would otherwise turn into a request for "/".
func DecodeEvent(raw []byte) (events.APIGatewayV2HTTPRequest, error) {
	var e events.APIGatewayV2HTTPRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&e); err != nil {
		return e, fmt.Errorf("event: %w", err)
	}
	switch {
	case e.Version != "2.0":
		return e, fmt.Errorf(`event: version is %q, want "2.0" (API Gateway HTTP API payload v2)`, e.Version)
	case e.RequestContext.HTTP.Method == "":
		return e, errors.New("event: requestContext.http.method is missing")
	case e.RawPath == "" && e.RequestContext.HTTP.Path == "":
		return e, errors.New("event: rawPath is missing")
	}
	return e, nil
}
