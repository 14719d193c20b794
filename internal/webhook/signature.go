package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"net/http"
	"strings"
)

const signaturePrefix = "sha256="

// parseSignature reads an X-Hub-Signature-256 header: sha256=<64 hex digits>. It is
// checked before the body is read, so a request that cannot be authenticated costs
// nothing but its headers.
//
// Fail closed: a missing or malformed header is an error. The SHA-1 X-Hub-Signature
// header is never consulted.
func parseSignature(header string) ([]byte, error) {
	if header == "" {
		return nil, errors.New("missing X-Hub-Signature-256")
	}
	hexSig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		return nil, errors.New("X-Hub-Signature-256 is not sha256=<hex>")
	}
	sig, err := hex.DecodeString(hexSig)
	if err != nil || len(sig) != sha256.Size {
		return nil, errors.New("X-Hub-Signature-256 is not sha256=<hex>")
	}
	return sig, nil
}

// newMAC returns the HMAC a body is hashed into as it arrives.
func newMAC(secret []byte) hash.Hash { return hmac.New(sha256.New, secret) }

// checkSignature compares the body's HMAC with the header's, in constant time.
func checkSignature(want []byte, mac hash.Hash) error {
	if !hmac.Equal(want, mac.Sum(nil)) {
		return errors.New("X-Hub-Signature-256 does not match the body")
	}
	return nil
}

// Sign returns the X-Hub-Signature-256 value GitHub would send for body. It is
// for tests and local tools that replay deliveries.
func Sign(secret, body []byte) string {
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	return signaturePrefix + hex.EncodeToString(mac.Sum(nil))
}

// SignedRequest builds a delivery as GitHub sends it to path: JSON body, event and
// delivery headers, and the signature. It is for tests and local replay tools.
func SignedRequest(url string, secret []byte, event, deliveryID string, body []byte) (*http.Request, error) {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("delivery request: %w", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", event)
	req.Header.Set("X-GitHub-Delivery", deliveryID)
	req.Header.Set("X-Hub-Signature-256", Sign(secret, body))
	return req, nil
}
