package auth

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// BootstrapOptions say how to create the first organization.
type BootstrapOptions struct {
	Secrets   secrets.Store // required: the store of the signing secret (the API key's pepper)
	SecretRef string        // required: the signing secret's ref (env JWT_SECRET_ARN)
	PepperRef string        // the API-key pepper secret's ref (env API_KEY_PEPPER_ARN), as in Config

	OrgName       string // default "default"
	AdminEmail    string // env ADMIN_EMAIL; default admin@example.com
	AdminPassword string // env ADMIN_PASSWORD; generated when empty
	Now           func() time.Time
}

// BootstrapResult is what Bootstrap created. Password and APIKey print as "[redacted]";
// the host reveals them once, to the operator.
type BootstrapResult struct {
	Created  bool // false when the table had an organization already (nothing else is set)
	OrgID    string
	UserID   string
	Email    string
	Password secrets.Value
	APIKey   secrets.Value
}

// Bootstrap creates the first organization of table, its admin user and an API key of that
// user, when the table holds no organization yet; else it changes nothing and returns
// Created false. Concurrent calls create one organization between them.
func Bootstrap(ctx context.Context, table store.Table, opts BootstrapOptions) (BootstrapResult, error) {
	if opts.Secrets == nil || opts.SecretRef == "" {
		return BootstrapResult{}, errors.New("auth: bootstrap: Secrets and SecretRef are required")
	}
	exists, err := store.AnyOrg(ctx, table)
	if err != nil || exists {
		return BootstrapResult{}, err
	}
	kr := &keyring{store: opts.Secrets, ref: opts.SecretRef, pepperRef: opts.PepperRef}
	k, err := kr.get(ctx)
	if err != nil {
		return BootstrapResult{}, err
	}
	email := store.NormalizeEmail(opts.AdminEmail)
	if email == "" {
		email = "admin@example.com"
	}
	password := opts.AdminPassword
	if password == "" {
		if password, err = randomPassword(); err != nil {
			return BootstrapResult{}, err
		}
	}
	hash, err := HashPassword(password)
	if err != nil {
		return BootstrapResult{}, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	at := now().UTC().Truncate(time.Microsecond)
	org := store.Org{ID: uuid.NewString(), Name: opts.OrgName, CreatedAt: at}
	if org.Name == "" {
		org.Name = "default"
	}
	admin := store.User{ID: uuid.NewString(), OrgID: org.ID, Email: email, FirstName: "Admin",
		Role: string(RoleAdmin), State: store.UserActive, CreatedAt: at, UpdatedAt: at}
	key, rec, digest, err := newAPIKeyRecord(k, org.ID, admin.ID, "bootstrap", nil, at)
	if err != nil {
		return BootstrapResult{}, err
	}
	err = store.Bootstrap(ctx, table, org, admin, hash, rec, digest)
	if errors.Is(err, store.ErrAlreadyExists) {
		return BootstrapResult{}, nil
	}
	if err != nil {
		return BootstrapResult{}, fmt.Errorf("auth: %w", err)
	}
	return BootstrapResult{Created: true, OrgID: org.ID, UserID: admin.ID, Email: email,
		Password: secrets.NewValueString(password), APIKey: secrets.NewValueString(key.String())}, nil
}

// randomPassword is 128 random bits, readable enough to type once.
func randomPassword() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("auth: generate password: %w", err)
	}
	return keyEncoding.EncodeToString(b), nil
}
