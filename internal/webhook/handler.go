package webhook

import (
	"context"
	"errors"
)

// Handler processes the webhook events it claims. It is the shape of
// palantir/go-githubapp's EventHandler.
//
// Handle runs on a worker, never on the HTTP request: ctx carries the delivery's
// log keys (see Logger) and is cancelled when the server is shut down for good.
// Handle may run more than once for a delivery (after a crash, or a retry), so it
// must be idempotent. Return Retryable(err) for errors worth another attempt.
type Handler interface {
	// Handles lists the X-GitHub-Event types this handler wants.
	Handles() []string
	// Handle processes one delivery; payload is the raw JSON body.
	Handle(ctx context.Context, eventType, deliveryID string, payload []byte) error
}

// retryableError marks an error as transient.
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

// Retryable marks err as transient: the worker retries the handler with
// backoff, up to Config.Retries times, then parks the delivery in failed/.
// Retryable(nil) is nil.
func Retryable(err error) error {
	if err == nil {
		return nil
	}
	return &retryableError{err: err}
}

// IsRetryable reports whether err (or an error it wraps) was marked Retryable.
func IsRetryable(err error) bool {
	var r *retryableError
	return errors.As(err, &r)
}
