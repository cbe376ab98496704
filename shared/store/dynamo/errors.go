package dynamo

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"

	"github.com/evalobs/evalapi/shared/store"
)

// mapErr turns an error of the SDK into the store's errors, keeping the SDK's error in the
// chain for logs. op says what was being done ("put USER#1|META").
func mapErr(op string, err error) error {
	var (
		ccf      *types.ConditionalCheckFailedException
		canceled *types.TransactionCanceledException
		api      smithy.APIError
	)
	switch {
	case errors.As(err, &ccf):
		return fmt.Errorf("dynamo: %s: %w: %w", op, store.ErrConditionFailed, err)
	case errors.As(err, &canceled):
		return fmt.Errorf("dynamo: %s: %w", op, &store.TxCanceledError{Reasons: cancelReasons(canceled)})
	case errors.As(err, &api):
		if kind := classify(api); kind != nil {
			return fmt.Errorf("dynamo: %s: %w: %w", op, kind, err)
		}
	}
	return fmt.Errorf("dynamo: %s: %w", op, err)
}

// classify returns the store error an API error code stands for, or nil.
func classify(api smithy.APIError) error {
	switch api.ErrorCode() {
	case "ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded":
		return store.ErrThrottled
	case "TransactionConflictException", "TransactionInProgressException":
		return store.ErrConflict
	case "ValidationException":
		// DynamoDB says "Item size has exceeded the maximum allowed size" for a put and
		// "Item size to update has exceeded ..." for an update; there is no separate code.
		if strings.Contains(strings.ToLower(api.ErrorMessage()), "item size") {
			return store.ErrTooLarge
		}
		return store.ErrInvalid
	}
	return nil
}

var reasonList = regexp.MustCompile(`\[([A-Za-z, ]*)\]\s*$`)

// cancelReasons returns one code per action of the transaction. DynamoDB sends them as
// CancellationReasons; an endpoint that sends only the message ("... specific reasons
// [ConditionalCheckFailed, None]") is read from the message.
func cancelReasons(e *types.TransactionCanceledException) []string {
	if len(e.CancellationReasons) > 0 {
		out := make([]string, len(e.CancellationReasons))
		for i, r := range e.CancellationReasons {
			out[i] = "None"
			if r.Code != nil && *r.Code != "" {
				out[i] = *r.Code
			}
		}
		return out
	}
	m := reasonList.FindStringSubmatch(e.ErrorMessage())
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range strings.Split(m[1], ",") {
		out = append(out, strings.TrimSpace(r))
	}
	return out
}
