// Command hello is the yardstick of `make sizes`: the smallest API Lambda aws-lambda-go
// allows (an HTTP API event in, a fixed response out), built with the same flags as the
// functions, so that a function's size over it is what our code and its dependencies add.
package main

import (
	"context"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-lambda-go/lambda"
)

func main() {
	lambda.Start(func(context.Context, events.APIGatewayV2HTTPRequest) (events.APIGatewayV2HTTPResponse, error) {
		return events.APIGatewayV2HTTPResponse{StatusCode: 200, Body: `{"status":"ok"}`,
			Headers: map[string]string{"Content-Type": "application/json"}}, nil
	})
}
