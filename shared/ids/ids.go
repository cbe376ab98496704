// Package ids makes the identifiers the service issues. Every id is a version-4 UUID (the
// specification's `uuid4`; the original's clients refuse any other version): a random one,
// or, where an id must be a function of its inputs (a session named by an external id, a
// record of an OpenTelemetry span), a hash of them carrying the version-4 and RFC 4122
// variant bits. Order never rides on an id: where records sort by time the key holds it.
package ids

import (
	"crypto/sha256"

	"github.com/google/uuid"
)

// New is a random UUID4.
func New() string { return uuid.NewString() }

// Hashed is the UUID4 that names `name` in namespace ns: the first 16 bytes of
// SHA-256(ns ‖ name) with the version nibble set to 4 and the variant bits to RFC 4122's.
// It is deterministic, so a retried or concurrent creation names the same record, and
// it is a valid UUID4, which a name-based UUID (version 3 or 5) is not.
func Hashed(ns uuid.UUID, name string) string {
	h := sha256.New()
	h.Write(ns[:])
	h.Write([]byte(name))
	var u uuid.UUID
	copy(u[:], h.Sum(nil))
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}

// IsUUID4 reports whether s is a UUID in its canonical form (36 characters, lower or upper
// case hex) of version 4 and the RFC 4122 variant.
func IsUUID4(s string) bool {
	if len(s) != 36 {
		return false
	}
	u, err := uuid.Parse(s)
	return err == nil && u.Version() == 4 && u.Variant() == uuid.RFC4122
}
