package auth

import (
	"context"
	"errors"
	"testing"

	"github.com/evalobs/evalapi/shared/httpapi"
)

func TestRequire(t *testing.T) {
	with := func(r Role) context.Context { return WithCaller(context.Background(), Caller{UserID: "u", Role: r}) }
	tests := []struct {
		name         string
		ctx          context.Context
		write, admin int // expected status, 0 for allowed
	}{
		{"admin", with(RoleAdmin), 0, 0},
		{"manager", with(RoleManager), 0, 403},
		{"user", with(RoleUser), 0, 403},
		{"read-only", with(RoleReadOnly), 403, 403},
		{"no caller", context.Background(), 401, 401},
	}
	status := func(err error) int {
		var se *httpapi.StatusError
		if errors.As(err, &se) {
			return se.Status
		}
		if err != nil {
			return -1
		}
		return 0
	}
	for _, tt := range tests {
		if got := status(RequireWrite(tt.ctx)); got != tt.write {
			t.Errorf("%s: RequireWrite = %d, want %d", tt.name, got, tt.write)
		}
		if got := status(RequireAdmin(tt.ctx)); got != tt.admin {
			t.Errorf("%s: RequireAdmin = %d, want %d", tt.name, got, tt.admin)
		}
	}
}
