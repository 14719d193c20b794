package webhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

const signaturePrefix = "sha256="

// verifySignature checks an X-Hub-Signature-256 header against body.
//
// Fail closed: a missing, malformed or wrong signature is an error, and so is an
// empty secret. The SHA-1 X-Hub-Signature header is never consulted.
func verifySignature(secret, body []byte, header string) error {
	if len(secret) == 0 {
		return errors.New("no webhook secret configured")
	}
	if header == "" {
		return errors.New("missing X-Hub-Signature-256")
	}
	hexSig, ok := strings.CutPrefix(header, signaturePrefix)
	if !ok {
		return errors.New("X-Hub-Signature-256 is not sha256=<hex>")
	}
	got, err := hex.DecodeString(hexSig)
	if err != nil || len(got) != sha256.Size {
		return errors.New("X-Hub-Signature-256 is not sha256=<hex>")
	}
	mac := hmac.New(sha256.New, secret)
	mac.Write(body)
	if !hmac.Equal(got, mac.Sum(nil)) { // constant time
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
