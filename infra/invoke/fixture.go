package main

import (
	"context"
	"fmt"
	"time"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/datasets"
	"github.com/evalobs/evalapi/shared/experiments"
	"github.com/evalobs/evalapi/shared/store"
)

// The fixture that the sample events under events/ are written against: an organization
// with one admin and the examples of shared/datasets (a dataset shared with a group) and
// shared/experiments (a project with a log stream and an experiment). Events authenticate as that admin with HTTP Basic (FixtureAuthorization),
// one of the service's four schemes, because its credentials are fixed while Bootstrap's
// API key is random.
const (
	FixtureEmail    = "fixture-admin@example.com"
	FixturePassword = "fixture-password-0123456789"
	// FixtureAuthorization is the header "authorization" of the events that act as the
	// fixture's admin: Basic base64(FixtureEmail ":" FixturePassword).
	FixtureAuthorization = "Basic Zml4dHVyZS1hZG1pbkBleGFtcGxlLmNvbTpmaXh0dXJlLXBhc3N3b3JkLTAxMjM0NTY3ODk="
)

// seed writes the fixture into d's (empty) table.
func seed(ctx context.Context, d app.Deps) error {
	res, err := auth.Bootstrap(ctx, d.Table, auth.BootstrapOptions{
		Secrets:       d.Secrets,
		SecretRef:     d.Config.JWTSecretARN,
		OrgName:       "fixture",
		AdminEmail:    FixtureEmail,
		AdminPassword: FixturePassword,
		Now:           d.Now,
	})
	if err != nil {
		return fmt.Errorf("seed: %w", err)
	}
	if !res.Created {
		return fmt.Errorf("seed: the table already has an organization")
	}
	for _, example := range []func(context.Context, store.Table, string, string, time.Time) error{
		datasets.SeedExample, experiments.SeedExample,
	} {
		if err := example(ctx, d.Table, res.OrgID, res.UserID, d.Now()); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
	}
	return nil
}
