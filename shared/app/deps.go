package app

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/evalobs/evalapi/shared/auth"
	"github.com/evalobs/evalapi/shared/payload"
	"github.com/evalobs/evalapi/shared/secrets"
	"github.com/evalobs/evalapi/shared/store"
)

// NewDeps completes the dependencies every host shares once it has chosen its adapters.
// It reads nothing: auth fetches the signing secret on first use.
func NewDeps(cfg Config, log *slog.Logger, tbl store.Table, sec secrets.Store) (Deps, error) {
	a, err := auth.New(auth.Config{
		Table:      tbl,
		Secrets:    sec,
		SecretRef:  cfg.JWTSecretARN,
		PepperRef:  cfg.APIKeyPepperARN,
		AccessTTL:  cfg.AccessTokenTTL,
		RefreshTTL: cfg.RefreshTokenTTL,
		Logger:     log,
		Now:        time.Now,
	})
	if err != nil {
		return Deps{}, fmt.Errorf("auth: %w", err)
	}
	// Payloads default to memory; the cloud and local hosts replace them with S3 or a folder.
	return Deps{Config: cfg, Table: tbl, Secrets: sec, Log: log, Now: time.Now, Auth: a, Payloads: payload.NewMemory()}, nil
}
