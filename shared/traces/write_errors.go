package traces

import (
	"errors"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/records"
	"github.com/evalobs/evalapi/shared/validate"
)

// errBusy answers a write that lost every attempt to concurrent writers of its run: nothing
// of the failed part was written, and the client's retry writes the rest.
var errBusy = httpapi.Unavailable("Too many concurrent writes to this run, retry later")

// writeError maps the write model's plain errors to their HTTP answers; any other error
// passes as it is (a validation error already carries its loc).
func writeError(err error) error {
	if errors.Is(err, records.ErrBusy) {
		return errBusy
	}
	if errors.Is(err, records.ErrTooLarge) {
		return validate.Single(validate.ValueError([]any{"body"}, nil,
			"this change moves more roll-up rows than one transaction holds; send it in smaller parts"))
	}
	return err
}
