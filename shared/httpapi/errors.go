package httpapi

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// StatusError is an answer other than 200 and 422: FastAPI's {"detail": "<message>"}.
type StatusError struct {
	Status int
	Detail string
	Header http.Header // extra response headers (WWW-Authenticate, Retry-After, Allow)
}

func (e *StatusError) Error() string { return http.StatusText(e.Status) + ": " + e.Detail }

// NotFound says a resource does not exist for the caller (also for another organization's).
func NotFound(resource string) *StatusError {
	return &StatusError{Status: http.StatusNotFound, Detail: resource + " not found"}
}

// Forbidden says the caller may not do this.
func Forbidden(detail string) *StatusError {
	return &StatusError{Status: http.StatusForbidden, Detail: detail}
}

// Unauthorized says the credential is missing or wrong; challenge is the WWW-Authenticate value.
func Unauthorized(detail, challenge string) *StatusError {
	e := &StatusError{Status: http.StatusUnauthorized, Detail: detail}
	if challenge != "" {
		e.Header = http.Header{"Www-Authenticate": {challenge}}
	}
	return e
}

// Conflict is a conflict that the specification does not route to 422.
func Conflict(detail string) *StatusError {
	return &StatusError{Status: http.StatusConflict, Detail: detail}
}

// PreconditionFailed answers a stale If-Match.
func PreconditionFailed(detail string) *StatusError {
	return &StatusError{Status: http.StatusPreconditionFailed, Detail: detail}
}

// Unavailable asks the client to retry later (throttling, a dependency that timed out).
func Unavailable(detail string) *StatusError {
	return &StatusError{Status: http.StatusServiceUnavailable, Detail: detail,
		Header: http.Header{"Retry-After": {"1"}}}
}

// BadGateway says a dependency answered wrongly.
func BadGateway(detail string) *StatusError {
	return &StatusError{Status: http.StatusBadGateway, Detail: detail}
}

var errTooLarge = &StatusError{Status: http.StatusRequestEntityTooLarge, Detail: "Request body too large"}

// WriteError answers err: 422 for validation, its own status for a StatusError, 503 for a
// throttled or timed-out dependency, 500 with nothing internal for anything else (logged).
func WriteError(w http.ResponseWriter, r *http.Request, log *slog.Logger, err error) {
	var verr *validate.Errors
	var serr *StatusError
	switch {
	case errors.As(err, &verr):
		WriteJSON(w, http.StatusUnprocessableEntity, verr)
	case errors.As(err, &serr):
		for k, vs := range serr.Header {
			w.Header()[k] = vs
		}
		WriteJSON(w, serr.Status, map[string]string{"detail": serr.Detail})
	case errors.Is(err, store.ErrThrottled), errors.Is(err, context.DeadlineExceeded):
		log.WarnContext(r.Context(), "dependency unavailable", "request_id", RequestID(r.Context()), "error", err.Error())
		WriteError(w, r, log, Unavailable("Service temporarily unavailable, retry later"))
	default:
		log.ErrorContext(r.Context(), "internal error", "request_id", RequestID(r.Context()), "route", r.Pattern, "error", err.Error())
		WriteJSON(w, http.StatusInternalServerError, map[string]string{"detail": "Internal Server Error"})
	}
}
