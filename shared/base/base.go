package base

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/store"
)

// Deps are the dependencies every operation group takes.
type Deps struct {
	Table        store.Table        // required
	Authenticate httpapi.Middleware // required: guards every route of the group
	Now          func() time.Time   // default time.Now
	Log          *slog.Logger       // default: discard
}

// WithDefaults returns d with its optional fields filled in. A missing required field is
// a wiring mistake of the host, so it panics at start naming the group.
func (d Deps) WithDefaults(group string) Deps {
	if d.Table == nil || d.Authenticate == nil {
		panic(group + ": Deps.Table and Deps.Authenticate are required")
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return d
}

// Stamp is the time records are stamped with: UTC, at the microsecond precision responses
// show, so that a record read back equals the one answered at its creation.
func (d Deps) Stamp() time.Time { return d.Now().UTC().Truncate(time.Microsecond) }

// Caller returns the authenticated caller of r. The middleware guarantees one; its absence
// (a route mounted without it) is answered as no credential at all rather than acting for
// nobody.
func Caller(r *http.Request) (auth.Caller, error) {
	c, ok := auth.CallerFrom(r.Context())
	if !ok {
		return auth.Caller{}, httpapi.Unauthorized("Not authenticated", "Bearer")
	}
	return c, nil
}

// Project reads project id of the caller's organization, or answers 404: a project of
// another organization is not found either.
func (d Deps) Project(ctx context.Context, c auth.Caller, id string) (store.Project, error) {
	p, err := store.GetProject(ctx, d.Table, c.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Project{}, httpapi.NotFound("Project")
	}
	return p, err
}

// Concurrently runs fns at once and returns the first error; the others see their context
// canceled once one failed. Reads that do not depend on each other use it, so that a
// request waits for the slowest of them instead of their sum.
func Concurrently(ctx context.Context, fns ...func(ctx context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, len(fns))
	var wg sync.WaitGroup
	for i, fn := range fns {
		wg.Go(func() {
			if errs[i] = fn(ctx); errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return errors.Join(errs...)
}
