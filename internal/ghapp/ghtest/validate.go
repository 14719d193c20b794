package ghtest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"
)

//go:embed testdata/api.github.com.trimmed.json
var description []byte

// Spec is GitHub's own OpenAPI description of the operations the fake serves, trimmed
// from @octokit/openapi (see testdata/README.md). Every request the fake receives and
// every response it sends is checked against it.
type Spec struct {
	doc    *openapi3.T
	router routers.Router
}

var (
	specOnce sync.Once
	specVal  *openapi3.T
	specErr  error
)

// loadDoc parses the embedded description once per test binary; it is immutable after
// loading, and each Spec builds its own router on a shallow copy with its own servers.
func loadDoc() (*openapi3.T, error) {
	specOnce.Do(func() {
		loader := openapi3.NewLoader()
		specVal, specErr = loader.LoadFromData(description)
		if specErr != nil {
			specErr = fmt.Errorf("load trimmed api.github.com description: %w", specErr)
			return
		}
		if err := specVal.Validate(loader.Context, openapi3.DisableExamplesValidation()); err != nil {
			specErr = fmt.Errorf("validate trimmed api.github.com description: %w", err)
		}
	})
	return specVal, specErr
}

// NewSpec returns the description with its server set to baseURL (the fake's URL
// including the base path, without a trailing slash).
func NewSpec(baseURL string) (*Spec, error) {
	doc, err := loadDoc()
	if err != nil {
		return nil, err
	}
	cp := *doc
	cp.Servers = openapi3.Servers{{URL: baseURL}}
	r, err := legacy.NewRouter(&cp, openapi3.DisableExamplesValidation())
	if err != nil {
		return nil, fmt.Errorf("build router for %s: %w", baseURL, err)
	}
	return &Spec{doc: &cp, router: r}, nil
}

// Example returns a copy of a named example from the description (for instance
// "issue-comment"), decoded into generic JSON values so the fake can start its
// responses from what GitHub documents.
func (s *Spec) Example(name string) (any, error) {
	ex, ok := s.doc.Components.Examples[name]
	if !ok || ex.Value == nil {
		return nil, fmt.Errorf("no example %q in the description", name)
	}
	raw, err := json.Marshal(ex.Value.Value)
	if err != nil {
		return nil, fmt.Errorf("encode example %q: %w", name, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return nil, fmt.Errorf("decode example %q: %w", name, err)
	}
	return v, nil
}

func options() *openapi3filter.Options {
	return &openapi3filter.Options{
		AuthenticationFunc:    openapi3filter.NoopAuthenticationFunc,
		IncludeResponseStatus: true,
		MultiError:            true,
	}
}

// route finds the documented operation for a request the server received.
func (s *Spec) route(r *http.Request, base *url.URL) (*openapi3filter.RequestValidationInput, error) {
	full := r.Clone(r.Context())
	path := r.URL.Path
	// {path} in .../contents/{path} spans slashes, which the router's segments do not.
	if before, after, ok := strings.Cut(path, "/contents/"); ok {
		path = before + "/contents/" + strings.ReplaceAll(after, "/", "%2F")
	}
	u, err := url.Parse(path)
	if err != nil {
		return nil, fmt.Errorf("parse path %q: %w", r.URL.Path, err)
	}
	full.URL = base.ResolveReference(u)
	full.URL.RawQuery = r.URL.RawQuery
	full.RequestURI = ""
	route, params, err := s.router.FindRoute(full)
	if err != nil {
		return nil, fmt.Errorf("%s %s is not in GitHub's description: %w", r.Method, r.URL.Path, err)
	}
	return &openapi3filter.RequestValidationInput{Request: full, PathParams: params, Route: route, Options: options()}, nil
}

// ValidateRequest checks a received request (whose body was read into body) against the
// operation it addresses.
func (s *Spec) ValidateRequest(ctx context.Context, r *http.Request, base *url.URL, body []byte) (*openapi3filter.RequestValidationInput, error) {
	in, err := s.route(r, base)
	if err != nil {
		return nil, err
	}
	in.Request.Body = io.NopCloser(bytes.NewReader(body))
	if len(body) == 0 {
		in.Request.Body = http.NoBody
	}
	if err := openapi3filter.ValidateRequest(ctx, in); err != nil {
		return in, fmt.Errorf("request %s %s does not match GitHub's description: %w", r.Method, r.URL.Path, err)
	}
	return in, nil
}

// ValidateResponse checks a response the fake is about to send.
func (s *Spec) ValidateResponse(ctx context.Context, in *openapi3filter.RequestValidationInput, status int, h http.Header, body []byte) error {
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 status,
		Header:                 h,
		Options:                options(),
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return fmt.Errorf("response %d to %s %s does not match GitHub's description: %w",
			status, in.Request.Method, in.Request.URL.Path, err)
	}
	return nil
}
