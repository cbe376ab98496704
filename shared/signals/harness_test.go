package signals

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalobs/evalapi/shared/base"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/infra/testenv"
	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/auth/authtest"
	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/schedule"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

var testNow = time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)

// harness is the group mounted on a router over a table, with two organizations to act as
// and a clock that tests move; every response is checked against docs/openapi.yaml.
type harness struct {
	t          *testing.T
	tbl        store.Table
	rt         *httpapi.Router
	v          *apitest.V
	org, other authtest.Org
	env        *authtest.Env

	clock *authtest.Clock

	model     *fakeModel
	pub       *recorder
	secrets   *secrets.Memory
	schedules *syncRecorder
	worker    *Runner
}

// syncStarter runs a queued job at once with the test's worker.
type syncStarter struct{ h *harness }

func (s syncStarter) Start(ctx context.Context, j Job) error { return s.h.worker.RunJob(ctx, j) }

// syncRecorder records the schedule calls.
type syncRecorder struct {
	mu    sync.Mutex
	calls []string
	fail  bool
}

func (r *syncRecorder) Sync(_ context.Context, name string, cs schedule.CloudSchedule, present bool) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail {
		return errors.New("scheduler down")
	}
	if present {
		r.calls = append(r.calls, "upsert "+name+" "+cs.ScheduleExpression+" "+cs.ScheduleExpressionTimezone)
	} else {
		r.calls = append(r.calls, "delete "+name)
	}
	return nil
}

func newHarness(t *testing.T, tbl store.Table) *harness {
	t.Helper()
	if tbl == nil {
		tbl = testenv.Embedded(t)
	}
	h := &harness{t: t, tbl: tbl, v: apitest.Validator(t), clock: authtest.NewClock(testNow),
		model: &fakeModel{}, pub: &recorder{}, secrets: secrets.NewMemory(), schedules: &syncRecorder{}}
	h.worker = &Runner{Table: tbl, Model: h.model, Notify: h.pub, Now: h.clock.Now}
	h.env = authtest.New(t, tbl, auth.Config{})
	h.rt = httpapi.NewRouter(slog.New(slog.DiscardHandler))
	Register(h.rt, Deps{Deps: base.Deps{Table: tbl, Authenticate: h.env.Service.Authenticate, Now: h.clock.Now},
		Secrets: h.secrets, Start: syncStarter{h}, Schedules: h.schedules,
		CheckWebhookURL: func(u string) error {
			if strings.Contains(u, "169.254") {
				return errors.New("refused")
			}
			return nil
		}})
	h.org, h.other = h.env.Org(t), h.env.Org(t)
	return h
}

// do sends a request as who (nil: without credentials) and returns the status and body.
func (h *harness) do(who *authtest.User, method, path, body string) (int, string) {
	rec := authtest.Do(h.t, h.rt, h.v, who, method, path, body)
	return rec.Code, rec.Body.String()
}

// runs creates a project of org with one log stream and one experiment, directly in the store.
func (h *harness) runs(org authtest.Org) (projectID, logStreamID, experimentID string) {
	h.t.Helper()
	ctx, now := h.t.Context(), h.clock.Now()
	p := store.Project{ID: uuid.NewString(), OrgID: org.ID, Name: "p-" + uuid.NewString()[:8], CreatedBy: org.Admin.UserID, CreatedAt: now, UpdatedAt: now}
	ls := store.LogStream{ID: uuid.NewString(), ProjectID: p.ID, OrgID: org.ID, Name: "ls", CreatedAt: now, UpdatedAt: now}
	e := store.Experiment{ID: uuid.NewString(), ProjectID: p.ID, OrgID: org.ID, Name: "exp", TaskType: 16, CreatedAt: now, UpdatedAt: now}
	if err := store.CreateProject(ctx, h.tbl, p); err != nil {
		h.t.Fatal(err)
	}
	if err := store.CreateLogStream(ctx, h.tbl, ls); err != nil {
		h.t.Fatal(err)
	}
	if err := store.CreateExperiment(ctx, h.tbl, e); err != nil {
		h.t.Fatal(err)
	}
	return p.ID, ls.ID, e.ID
}

func configPath(projectID, runID string) string {
	return "/v2/projects/" + projectID + "/runs/" + runID + "/signals/configuration"
}
