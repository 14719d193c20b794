// Package ghapp builds GitHub clients for the App: app (JWT) and installation clients
// over a stack of small http.RoundTripper middleware for rate limits, conditional
// requests, logging, metrics and the User-Agent.
package ghapp

import (
	"net/http"
)

// Middleware wraps a RoundTripper with one concern.
type Middleware func(http.RoundTripper) http.RoundTripper

// roundTripperFunc adapts a function to http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// Chain wraps base so that the first middleware is the outermost.
func Chain(base http.RoundTripper, mws ...Middleware) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	for i := len(mws) - 1; i >= 0; i-- {
		base = mws[i](base)
	}
	return base
}

// UserAgent sets a versioned User-Agent (e.g. "dixit/1.2.0") on every request.
func UserAgent(ua string) Middleware {
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			r = r.Clone(r.Context())
			r.Header.Set("User-Agent", ua)
			return next.RoundTrip(r)
		})
	}
}
