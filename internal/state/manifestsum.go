package state

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"

	"github.com/meshnode/meshnode/internal/manifest"
)

// manifestSumLen is the length of a MANIFEST fingerprint in hex digits:
// the first 64 bits of its sha256. The fingerprint only tells whether a
// body is the one last read, so that it is not parsed again; nothing is
// trusted on it. Only the peer (or whoever serves its bytes) chooses the
// body, and it can already make us skip a changed MANIFEST by answering
// 304, so a collision it crafts gains it nothing; one by chance comes
// once in 2^64 polls. The full hash cost 41 packed bytes more per poll
// with news (docs/decisions.md, "A cursor's fingerprint of the MANIFEST").
const manifestSumLen = 16

// SumManifest returns the fingerprint a cursor keeps of the MANIFEST
// bytes b (Cursor.ManifestSum).
func SumManifest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:manifestSumLen/2])
}

// sumOfHash returns the fingerprint of the bytes whose full hash is h, as
// older nodes kept it (manifest_sha256); "" when h is not a hash, which
// only means the next MANIFEST read is parsed.
func sumOfHash(h manifest.Hash) string {
	if !h.Valid() {
		return ""
	}
	bare, _ := strings.CutPrefix(string(h), "sha256:")
	return bare[:manifestSumLen]
}

// UnmarshalJSON decodes a cursor as written now or by an older node, whose
// manifest_sha256 (the MANIFEST's full hash) is read as its fingerprint,
// so that both forms decode to the same cursor.
func (c *Cursor) UnmarshalJSON(data []byte) error {
	type plain Cursor
	var in struct {
		*plain
		Legacy manifest.Hash `json:"manifest_sha256"`
	}
	in.plain = (*plain)(c)
	if err := json.Unmarshal(data, &in); err != nil {
		return err
	}
	if c.ManifestSum == "" {
		c.ManifestSum = sumOfHash(in.Legacy)
	}
	return nil
}
