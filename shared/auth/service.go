package auth

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/evalobs/evalapi/shared/httpapi"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// Defaults of the token lifetimes (env ACCESS_TOKEN_TTL and REFRESH_TOKEN_TTL).
const (
	DefaultAccessTTL  = time.Hour
	DefaultRefreshTTL = 14 * 24 * time.Hour
	// MaxAPIKeyCacheTTL bounds how long a validated API key is trusted without reading the
	// store again: a revocation takes effect on every instance within this time (at once on
	// the instance that revoked it).
	MaxAPIKeyCacheTTL = StalenessBound
)

// Config is what a host gives New; it reads the environment once at start.
type Config struct {
	Table     store.Table   // required
	Secrets   secrets.Store // required: where the signing secret lives
	SecretRef string        // required: the signing secret's ref (env JWT_SECRET_ARN)
	// PepperRef is the API-key pepper secret's ref (env API_KEY_PEPPER_ARN); empty derives
	// the pepper from the signing secret.
	PepperRef string

	AccessTTL  time.Duration // default DefaultAccessTTL
	RefreshTTL time.Duration // default DefaultRefreshTTL
	// APIKeyCacheTTL is how long a validated key or session is cached per instance: at most
	// StalenessBound (the default); negative disables the caches.
	APIKeyCacheTTL time.Duration

	Logger *slog.Logger     // default: discard
	Now    func() time.Time // default time.Now
}

// Service authenticates requests and serves the identity routes.
type Service struct {
	table      store.Table
	keyring    *keyring
	accessTTL  time.Duration
	refreshTTL time.Duration
	log        *slog.Logger
	now        func() time.Time
	cache      *ttlCache[cachedKey]     // validated API keys, by key id
	sessions   *ttlCache[cachedCaller]  // validated sessions of access tokens, by session id
	tokens     *ttlCache[verifiedToken] // verified access tokens, by token (token_cache.go)

	// hashSlots bounds concurrent argon2id runs (19 MiB each) in one process.
	hashSlots chan struct{}
	dummyHash func() (string, error)
	// background holds the last-used writes that run after the response.
	background sync.WaitGroup
}

// New checks cfg and returns the service. It reads nothing yet: the signing secret is
// fetched on first use, so a cold start pays for it only when a request needs it.
func New(cfg Config) (*Service, error) {
	if cfg.Table == nil || cfg.Secrets == nil || cfg.SecretRef == "" {
		return nil, errors.New("auth: Table, Secrets and SecretRef are required")
	}
	s := &Service{
		table:      cfg.Table,
		keyring:    &keyring{store: cfg.Secrets, ref: cfg.SecretRef, pepperRef: cfg.PepperRef},
		accessTTL:  orDefault(cfg.AccessTTL, DefaultAccessTTL),
		refreshTTL: orDefault(cfg.RefreshTTL, DefaultRefreshTTL),
		log:        cfg.Logger,
		now:        cfg.Now,
		hashSlots:  make(chan struct{}, max(2, runtime.GOMAXPROCS(0))),
		dummyHash:  sync.OnceValues(func() (string, error) { return HashPassword("dummy password for timing") }),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	ttl := cfg.APIKeyCacheTTL
	if ttl == 0 || ttl > MaxAPIKeyCacheTTL {
		ttl = MaxAPIKeyCacheTTL
	}
	s.cache = newTTLCache[cachedKey](ttl)
	s.sessions = newTTLCache[cachedCaller](ttl)
	// Not a staleness matter (a token's verification does not change), but off with the
	// others, so that a host without caches verifies every token.
	s.tokens = newTTLCache[verifiedToken](ttl)
	return s, nil
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// ParseTTL reads a lifetime from the environment's text: a Go duration ("1h", "336h") or
// whole seconds ("3600"); empty gives def.
func ParseTTL(text string, def time.Duration) (time.Duration, error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return def, nil
	}
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		if n <= 0 {
			return 0, fmt.Errorf("auth: ttl %q must be positive", text)
		}
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("auth: ttl %q is neither a positive duration nor seconds", text)
	}
	return d, nil
}

// Wait blocks until the background writes started so far (API-key last-used stamps) are
// done: for tests and a graceful shutdown of the local host.
func (s *Service) Wait() { s.background.Wait() }

// clock returns the current time in UTC at microsecond precision (what responses show).
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// http401 builds the 401 answers. Every one carries WWW-Authenticate: Bearer, the scheme
// of the token URL, as FastAPI's OAuth2PasswordBearer does.
func http401(detail string) *httpapi.StatusError { return httpapi.Unauthorized(detail, "Bearer") }

// Details of the 401 answers.
const (
	detailNotAuthenticated = "Not authenticated"
	detailBadAPIKey        = "Invalid API key"
	detailBadToken         = "Could not validate credentials"
	detailBadLogin         = "Incorrect username or password"
	detailBadBasic         = "Invalid authentication credentials"
	detailBadRefresh       = "Invalid refresh token"
)
