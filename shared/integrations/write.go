package integrations

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/base"
	"github.com/evalobs/evalapi/shared/credentials"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
	"github.com/evalobs/evalapi/shared/validate"
)

// putCloudHost is PUT /v2/integrations/cloud-host.
func (h *handlers) putCloudHost(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, func(in *base.Input) write {
		return readCloudHost(in.Errs, in.Raw, in.Present, h.Discoverer.AllowPrivate)
	})
	if err != nil {
		return err
	}
	wr := call.In
	if wr.discover {
		endpoint, _ := wr.settings["endpoint"].(string)
		version, _ := wr.settings["api_version"].(string)
		ds, err := h.Discoverer.Deployments(r.Context(), endpoint, version, wr.creds.Token)
		if err != nil {
			h.Log.InfoContext(r.Context(), "deployment listing failed", "cause", err.Error())
			return validate.Single(validate.ValueError([]any{"body", "endpoint"}, endpointInput(endpoint), causeMessage(err)))
		}
		list := make([]any, len(ds))
		for i, d := range ds {
			list[i] = map[string]any{"model": d.Model, "id": d.ID}
		}
		wr.settings["available_deployments"] = list
	}
	return h.save(w, r, call.Caller, wr)
}

// putModelVendor is PUT /v2/integrations/model-vendor.
func (h *handlers) putModelVendor(w http.ResponseWriter, r *http.Request) error {
	call, err := base.Open(r, base.Opening{Body: true, Write: true}, base.ReadBody(readModelVendor))
	if err != nil {
		return err
	}
	return h.save(w, r, call.Caller, call.In)
}

var errSecretStore = httpapi.Unavailable("The secret store is unavailable; the integration was not saved. Try again later.")

// save creates the caller's integration of wr's provider or replaces its configuration.
//
// Each round reads the integration, writes the secret (a new version of the same secret on
// a replace), then the record, conditioned on what was read. A round that loses to a
// concurrent write of the same integration starts over, so that the last record written
// is always paired with the last secret value written: the two carry the same revision.
// A new integration's secret whose record could not be written is deleted (it has an id
// nobody will use); a replace whose record failed leaves a secret newer than the record,
// which readers detect by the revision and the next PUT overwrites.
func (h *handlers) save(w http.ResponseWriter, r *http.Request, c auth.Caller, wr write) error {
	ctx := r.Context()
	for attempt := 1; ; attempt++ {
		prev, err := store.OwnIntegration(ctx, h.Table, c.OrgID, c.UserID, wr.provider)
		exists := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		now := h.Stamp()
		in := store.Integration{ID: uuid.NewString(), OrgID: c.OrgID, OwnerID: c.UserID, Provider: wr.provider,
			Name: wr.provider, Settings: wr.settings, Revision: uuid.NewString(), CreatedAt: now, UpdatedAt: now}
		var restore []byte // the replaced credentials, put back if the record write fails
		if exists {
			in.ID, in.CreatedAt, in.IsSelected, in.IsDisabled = prev.ID, prev.CreatedAt, prev.IsSelected, prev.IsDisabled
			if restore, err = h.Secrets.Get(ctx, prev.SecretRef); err != nil {
				h.Log.ErrorContext(ctx, "integration secret read failed", "integration_id", in.ID, "error", err)
				return errSecretStore
			}
		}
		in.SecretRef, err = h.putSecret(ctx, c, in, wr.creds)
		if err != nil {
			clear(restore)
			return err
		}
		if exists {
			err = store.ReplaceIntegration(ctx, h.Table, in, prev.Revision)
		} else {
			err = store.CreateIntegration(ctx, h.Table, in)
		}
		if err == nil {
			httpapi.WriteJSON(w, http.StatusOK, integrationOut(in, accessOwner))
			return nil
		}
		raced := errors.Is(err, store.ErrConditionFailed) || errors.Is(err, store.ErrAlreadyExists) || errors.Is(err, store.ErrConflict)
		switch {
		case !exists && (raced || !h.recordWritten(ctx, in)):
			h.dropSecret(ctx, in)
		case exists && !raced && !h.recordWritten(ctx, in):
			// The record still names the old revision: give it back its credentials. (After
			// a lost race the winner's secret must stay: the next round writes ours again.)
			h.restoreSecret(ctx, in, restore)
		}
		clear(restore)
		if !raced {
			return err
		}
		if attempt >= h.Attempts {
			return httpapi.Unavailable("Too many concurrent changes to this integration; try again")
		}
		if err := pause(ctx, attempt); err != nil {
			return err
		}
	}
}

// SecretName is the name of an integration's secret under the store's prefix.
func SecretName(integrationID string) string { return credentials.SecretName(integrationID) }

// putSecret writes the credentials of in as its secret and returns the ref.
func (h *handlers) putSecret(ctx context.Context, c auth.Caller, in store.Integration, cr credentialsIn) (string, error) {
	value, err := credentials.Encode(in.Revision, credentials.Set{Token: cr.Token, APIKeyValue: cr.APIKeyValue, Headers: cr.DefaultHeaders})
	if err != nil {
		return "", err
	}
	tags := map[string]string{"organization": c.OrgID, "owner": c.UserID, "integration": in.ID}
	ref, err := h.Secrets.Put(ctx, SecretName(in.ID), value, tags)
	clear(value)
	if err != nil {
		// Adapter errors name the secret, never its value.
		h.Log.ErrorContext(ctx, "integration secret write failed", "integration_id", in.ID, "error", err)
		return "", errSecretStore
	}
	return ref, nil
}

// recordWritten tells, after a failed create whose outcome is unknown (a timeout may come
// after the table applied the write), whether in's record exists: its secret must then be
// kept, or the record would point at nothing. When the read fails too, the secret is kept:
// an orphan secret costs little, a record without its secret is a broken integration.
func (h *handlers) recordWritten(ctx context.Context, in store.Integration) bool {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	got, err := store.GetIntegration(ctx, h.Table, in.OrgID, in.ID)
	return err == nil && got.Revision == in.Revision || err != nil && !errors.Is(err, store.ErrNotFound)
}

// dropSecret deletes the secret of an integration whose record was not written. It runs
// even when the request was cancelled, so that no orphan is left behind.
func (h *handlers) dropSecret(ctx context.Context, in store.Integration) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := h.Secrets.Delete(ctx, in.SecretRef); err != nil {
		h.Log.ErrorContext(ctx, "orphan integration secret not deleted", "integration_id", in.ID, "error", err)
	}
}

// restoreSecret puts back the credentials a failed replace overwrote, even when the request
// was cancelled. When that fails too, the record's revision no longer matches its secret, so
// ReadSecret refuses the pair until the next PUT repairs it.
func (h *handlers) restoreSecret(ctx context.Context, in store.Integration, value []byte) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	tags := map[string]string{"organization": in.OrgID, "owner": in.OwnerID, "integration": in.ID}
	if _, err := h.Secrets.Put(ctx, SecretName(in.ID), value, tags); err != nil {
		h.Log.ErrorContext(ctx, "replaced integration secret not restored", "integration_id", in.ID, "error", err)
	}
}

// Credentials are the secret parts of an integration, as its secret holds them.
type Credentials = credentials.Set

// ReadCredentials returns the credentials of an integration through the secrets port, with
// the revision check (see credentials.Read).
func ReadCredentials(ctx context.Context, sec secrets.Store, in store.Integration) (Credentials, bool, error) {
	return credentials.Read(ctx, sec, in)
}

// ReadSecret is ReadCredentials for the token and headers alone.
func ReadSecret(ctx context.Context, sec secrets.Store, in store.Integration) (token secrets.Value, headers map[string]secrets.Value, ok bool, err error) {
	c, ok, err := ReadCredentials(ctx, sec, in)
	return c.Token, c.Headers, ok, err
}

// pause waits a little before another round, longer after each lost race.
func pause(ctx context.Context, attempt int) error {
	d := time.Millisecond + rand.N(time.Duration(min(attempt, 20))*2*time.Millisecond)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
