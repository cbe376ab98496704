package auth

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Argon2id parameters: OWASP's minimum (m=19 MiB, t=2, p=1). They are written into every
// hash, so raising them later keeps old hashes verifiable.
const (
	argonMemoryKiB = 19 * 1024
	argonTime      = 2
	argonThreads   = 1
	argonSaltLen   = 16
	argonKeyLen    = 32
)

// MaxPasswordLen bounds the input of one hash (argon2 takes any length; the bound keeps a
// request from feeding it megabytes).
const MaxPasswordLen = 256

var errBadHash = errors.New("auth: malformed password hash")

// HashPassword returns the PHC string of password under argon2id:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash> (unpadded standard base64).
func HashPassword(password string) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("auth: hash password: %w", err)
	}
	sum := argon2.IDKey([]byte(password), salt, argonTime, argonMemoryKiB, argonThreads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemoryKiB, argonTime, argonThreads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(sum)), nil
}

// VerifyPassword reports whether password matches the PHC hash, comparing in constant
// time. A malformed hash is an error, never a match.
func VerifyPassword(hash, password string) (bool, error) {
	p, err := parsePHC(hash)
	if err != nil {
		return false, err
	}
	sum := argon2.IDKey([]byte(password), p.salt, p.time, p.memory, p.threads, uint32(len(p.sum)))
	return subtle.ConstantTimeCompare(sum, p.sum) == 1, nil
}

type phc struct {
	memory, time uint32
	threads      uint8
	salt, sum    []byte
}

func parsePHC(s string) (phc, error) {
	parts := strings.Split(s, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return phc{}, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return phc{}, errBadHash
	}
	var p phc
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.memory, &p.time, &p.threads); err != nil {
		return phc{}, errBadHash
	}
	// Bounds keep a corrupt or hostile hash from costing more than a login should.
	if p.memory < 8*1024 || p.memory > 256*1024 || p.time < 1 || p.time > 10 || p.threads < 1 || p.threads > 16 {
		return phc{}, errBadHash
	}
	var err error
	if p.salt, err = base64.RawStdEncoding.DecodeString(parts[4]); err != nil || len(p.salt) < 8 {
		return phc{}, errBadHash
	}
	if p.sum, err = base64.RawStdEncoding.DecodeString(parts[5]); err != nil || len(p.sum) < 16 || len(p.sum) > 64 {
		return phc{}, errBadHash
	}
	return p, nil
}
