package auth

import (
	"context"

	"github.com/evalobs/evalapi/shared/httpapi"
)

// RequireWrite returns nil when the caller in ctx may write, a 403 for a read-only user and
// a 401 when ctx holds no caller. Handlers call it after validating their input, so that a
// bad request is a 422 whatever the caller's role, as FastAPI orders its checks.
func RequireWrite(ctx context.Context) error {
	c, ok := CallerFrom(ctx)
	if !ok {
		return http401(detailNotAuthenticated)
	}
	if !c.CanWrite() {
		return httpapi.Forbidden("Read-only users cannot perform this action")
	}
	return nil
}

// RequireAdmin returns nil when the caller in ctx administers the organization, else a 403
// (a 401 when ctx holds no caller).
func RequireAdmin(ctx context.Context) error {
	c, ok := CallerFrom(ctx)
	if !ok {
		return http401(detailNotAuthenticated)
	}
	if !c.IsAdmin() {
		return httpapi.Forbidden("Only organization admins can perform this action")
	}
	return nil
}
