// Package auth turns a request into the caller who made it, by any of the four security
// schemes of the specification, and issues and rotates the tokens of the password flow.
package auth

import "context"

// Role is a user's role in the organization.
type Role string

const (
	RoleAdmin    Role = "admin"
	RoleManager  Role = "manager"
	RoleUser     Role = "user"
	RoleReadOnly Role = "read_only"
)

// Caller is the authenticated user a request acts for.
type Caller struct {
	UserID    string
	OrgID     string
	Role      Role
	Email     string
	FirstName string
	LastName  string
	Scheme    string // which scheme authenticated: "api_key", "bearer", "basic"
	APIKeyID  string // the key that authenticated (Scheme "api_key")
	SessionID string // the session of the access token (Scheme "bearer")
}

// IsAdmin reports whether the caller administers the organization.
func (c Caller) IsAdmin() bool { return c.Role == RoleAdmin }

// CanWrite reports whether the caller's organization role allows any write.
func (c Caller) CanWrite() bool { return c.Role != RoleReadOnly }

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller that the authentication middleware put in ctx.
func CallerFrom(ctx context.Context) (Caller, bool) {
	c, ok := ctx.Value(callerKey{}).(Caller)
	return c, ok
}
