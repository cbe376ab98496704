package dynamo

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalobs/evalapi/shared/store"
)

// apiError is a refusal of the service: *awscall.Error, or the SDK's errors.
type apiError interface {
	ErrorCode() string
	ErrorMessage() string
}

// mapErr turns a refusal of DynamoDB into the store's errors, keeping the original in the
// chain for logs. op says what was being done ("put USER#1|META").
func mapErr(op string, err error) error {
	var api apiError
	if !errors.As(err, &api) {
		return fmt.Errorf("dynamo: %s: %w", op, err)
	}
	switch api.ErrorCode() {
	case "ConditionalCheckFailedException":
		return fmt.Errorf("dynamo: %s: %w: %w", op, store.ErrConditionFailed, err)
	case "TransactionCanceledException":
		return fmt.Errorf("dynamo: %s: %w", op, &store.TxCanceledError{Reasons: cancelReasons(err, api)})
	}
	if kind := classify(api); kind != nil {
		return fmt.Errorf("dynamo: %s: %w: %w", op, kind, err)
	}
	return fmt.Errorf("dynamo: %s: %w", op, err)
}

// classify returns the store error an API error code stands for, or nil.
func classify(api apiError) error {
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
// CancellationReasons in the error's body; an endpoint that sends only the message
// ("... specific reasons [ConditionalCheckFailed, None]") is read from the message.
func cancelReasons(err error, api apiError) []string {
	var withBody interface{ ErrorBody() []byte }
	if errors.As(err, &withBody) {
		var body struct {
			CancellationReasons []struct{ Code *string }
		}
		if json.Unmarshal(withBody.ErrorBody(), &body) == nil && len(body.CancellationReasons) > 0 {
			out := make([]string, len(body.CancellationReasons))
			for i, r := range body.CancellationReasons {
				out[i] = "None"
				if r.Code != nil && *r.Code != "" {
					out[i] = *r.Code
				}
			}
			return out
		}
	}
	m := reasonList.FindStringSubmatch(api.ErrorMessage())
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range strings.Split(m[1], ",") {
		out = append(out, strings.TrimSpace(r))
	}
	return out
}
