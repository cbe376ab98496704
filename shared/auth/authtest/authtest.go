// Package authtest gives handler tests identities to act as: an organization with a user of
// every role, API keys, access tokens and groups, on any store.Table.
//
//	env := authtest.New(t, tbl, auth.Config{})      // an auth.Service on tbl, in-memory secrets
//	org := env.Org(t)                                  // admin, manager, user, read-only user
//	rt := httpapi.NewRouter(log)
//	rt.Handle("GET /v2/things", h.list, env.Service.Authenticate)
//	req := httptest.NewRequest("GET", "/v2/things", nil)
//	req.Header = org.User.Header()                     // Vendor-AO-API-Key: <key>
//
// Handlers tested without the middleware can take org.User.Context(ctx) instead. Every user
// of an Env has the same password (Env.Password), hashed once, so fixtures stay cheap.
package authtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/evalobs/evalapi/shared/apitest"
	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// Env is an auth.Service on a table, with what it needs to make identities.
type Env struct {
	Table    store.Table
	Secrets  *secrets.Memory
	Service  *auth.Service
	Password string // the password of every user the Env creates

	hash string
	now  func() time.Time
}

// New returns an Env on table. cfg may set the TTLs, Logger and Now of the service; its
// Table, Secrets and SecretRef are the Env's own (a fresh signing secret in memory).
func New(t testing.TB, table store.Table, cfg auth.Config) *Env {
	t.Helper()
	sec := secrets.NewMemory()
	ref, err := auth.EnsureSigningSecret(t.Context(), sec, "authtest/jwt")
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	cfg.Table, cfg.Secrets, cfg.SecretRef = table, sec, ref
	svc, err := auth.New(cfg)
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	t.Cleanup(svc.Wait)
	password := "pw-" + rand.Text()
	hash, err := auth.HashPassword(password)
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	now := cfg.Now
	if now == nil {
		now = time.Now
	}
	return &Env{Table: table, Secrets: sec, Service: svc, Password: password, hash: hash, now: now}
}

// User is an identity to act as.
type User struct {
	auth.Caller
	Password    string // to log in, or for HTTP Basic
	APIKey      string // a live API key of the user
	AccessToken string // a live access token of the user
}

// Header returns request headers that authenticate as u with its API key.
func (u User) Header() http.Header {
	h := http.Header{}
	h.Set(auth.HeaderVendorAPIKey, u.APIKey)
	return h
}

// BearerHeader returns request headers that authenticate as u with its access token.
func (u User) BearerHeader() http.Header {
	return http.Header{"Authorization": {"Bearer " + u.AccessToken}}
}

// BasicHeader returns request headers that authenticate as u with HTTP Basic.
func (u User) BasicHeader() http.Header {
	cred := base64.StdEncoding.EncodeToString([]byte(u.Email + ":" + u.Password))
	return http.Header{"Authorization": {"Basic " + cred}}
}

// Context returns ctx carrying u as the caller, for handlers called without the middleware.
func (u User) Context(ctx context.Context) context.Context { return auth.WithCaller(ctx, u.Caller) }

// Org is an organization with one user of each role.
type Org struct {
	ID                             string
	Admin, Manager, User, ReadOnly User
}

// Org creates an organization with an admin, a manager, a user and a read-only user.
func (e *Env) Org(t testing.TB) Org {
	t.Helper()
	id := uuid.NewString()
	if err := store.CreateOrg(t.Context(), e.Table, store.Org{ID: id, Name: "org-" + id[:8], CreatedAt: e.now().UTC()}); err != nil {
		t.Fatalf("authtest: %v", err)
	}
	return Org{
		ID:       id,
		Admin:    e.AddUser(t, id, auth.RoleAdmin),
		Manager:  e.AddUser(t, id, auth.RoleManager),
		User:     e.AddUser(t, id, auth.RoleUser),
		ReadOnly: e.AddUser(t, id, auth.RoleReadOnly),
	}
}

// AddUser creates an active user of organization orgID with role, an API key and an access
// token.
func (e *Env) AddUser(t testing.TB, orgID string, role auth.Role) User {
	t.Helper()
	ctx := t.Context()
	now := e.now().UTC()
	id := uuid.NewString()
	u := store.User{ID: id, OrgID: orgID, Email: string(role) + "-" + id[:8] + "@example.com",
		FirstName: "Test", LastName: string(role), Role: string(role), State: store.UserActive,
		CreatedAt: now, UpdatedAt: now}
	if err := store.CreateUser(ctx, e.Table, u, e.hash); err != nil {
		t.Fatalf("authtest: %v", err)
	}
	key, _, err := e.Service.CreateAPIKey(ctx, orgID, u.ID, "authtest", nil)
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	tok, err := e.Service.AccessToken(ctx, orgID, u.ID)
	if err != nil {
		t.Fatalf("authtest: %v", err)
	}
	return User{
		Caller: auth.Caller{UserID: u.ID, OrgID: orgID, Role: role, Email: u.Email,
			FirstName: u.FirstName, LastName: u.LastName, Scheme: auth.SchemeAPIKey},
		Password: e.Password, APIKey: key.RevealString(), AccessToken: tok,
	}
}

// Group creates a group in org (created by its admin) with members as plain members.
func (e *Env) Group(t testing.TB, org Org, name string, members ...User) store.Group {
	t.Helper()
	g := store.Group{ID: uuid.NewString(), OrgID: org.ID, Name: name, Visibility: store.GroupPublic,
		CreatedBy: org.Admin.UserID, CreatedAt: e.now().UTC()}
	if err := store.CreateGroup(t.Context(), e.Table, g); err != nil {
		t.Fatalf("authtest: %v", err)
	}
	ms := make([]store.GroupMember, len(members))
	for i, m := range members {
		ms[i] = store.GroupMember{GroupID: g.ID, UserID: m.UserID, OrgID: org.ID, Role: store.MemberRegular, CreatedAt: g.CreatedAt}
	}
	if err := store.AddGroupMembers(t.Context(), e.Table, ms); err != nil {
		t.Fatalf("authtest: %v", err)
	}
	return g
}

// Do sends a request to h as who (nil: without credentials), with body as JSON when it is
// not empty, checks the answer against the OpenAPI document with v, and returns it.
func Do(t testing.TB, h http.Handler, v *apitest.V, who *User, method, path, body string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if who != nil {
		req.Header = who.Header()
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	v.CheckRecorder(t, req, rec)
	return rec
}

// DoBody is Do with a body of any content type (a multipart form, a CSV file).
func DoBody(t testing.TB, h http.Handler, v *apitest.V, who *User, method, path, contentType string, body []byte) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(method, path, bytes.NewReader(body))
	if who != nil {
		req.Header = who.Header()
	}
	req.Header.Set("Content-Type", contentType)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	v.CheckRecorder(t, req, rec)
	return rec
}

// Multipart builds a multipart/form-data body of fields and files (name to content; a
// file's filename is its name with ".txt" unless the name holds one after a colon,
// "file:data.csv"); it returns the body and its content type.
func Multipart(t testing.TB, fields map[string]string, files map[string][]byte) ([]byte, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for _, k := range sortedKeys(fields) {
		if err := w.WriteField(k, fields[k]); err != nil {
			t.Fatal(err)
		}
	}
	for _, k := range sortedKeys(files) {
		name, filename, ok := strings.Cut(k, ":")
		if !ok {
			filename = name + ".txt"
		}
		fw, err := w.CreateFormFile(name, filename)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := fw.Write(files[k]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w.FormDataContentType()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Clock is a time source that tests move: handlers take its Now.
type Clock struct {
	mu  sync.Mutex
	now time.Time
}

// NewClock returns a clock stopped at t.
func NewClock(t time.Time) *Clock { return &Clock{now: t} }

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves the clock by d.
func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// Set moves the clock to t.
func (c *Clock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = t
}
