package local

import (
	"context"
	"fmt"
	"io"

	"github.com/evalobs/evalapi/shared/app"
	"github.com/evalobs/evalapi/shared/auth"
)

// Bootstrap creates the first organization, its admin and an API key when the table has no
// organization yet, and prints them to out (the terminal) that one time: what `make run`
// does on first start and `make bootstrap` does for a deployed stack. The password and
// key are secrets.Values: they reach out only through Reveal here, never the log.
func Bootstrap(ctx context.Context, d app.Deps, getenv func(string) string, out io.Writer) error {
	res, err := auth.Bootstrap(ctx, d.Table, auth.BootstrapOptions{
		Secrets:       d.Secrets,
		SecretRef:     d.Config.JWTSecretARN,
		PepperRef:     d.Config.APIKeyPepperARN,
		AdminEmail:    getenv("ADMIN_EMAIL"),
		AdminPassword: getenv("ADMIN_PASSWORD"),
		Now:           d.Now,
	})
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	if !res.Created {
		d.Log.InfoContext(ctx, "organization exists; nothing to bootstrap")
		return nil
	}
	d.Log.InfoContext(ctx, "bootstrapped the first organization", "org_id", res.OrgID, "user_id", res.UserID)
	password := "(the value of ADMIN_PASSWORD)" // the operator chose it: no need to echo it
	if getenv("ADMIN_PASSWORD") == "" {
		password = res.Password.RevealString()
	}
	_, err = fmt.Fprintf(out, `First start: created an organization and its admin. Shown this once only:
  e-mail    %s
  password  %s
  API key   %s   (header Service-API-Key, Vendor-AO-API-Key or Galileo-API-Key)
`, res.Email, password, res.APIKey.RevealString())
	return err
}
