package ghtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSpecExamplesValidate(t *testing.T) {
	s, err := NewSpec("http://fake/api-v3")
	require.NoError(t, err)
	base, _ := url.Parse("http://fake/api-v3/")
	// GitHub's own examples are not all valid against its schemas; the validator must
	// notice (wantErr), which is also why the fake patches them before sending.
	cases := []struct{ method, path, example, wantErr string }{
		{"GET", "/api-v3/repos/o/r/issues/comments/1", "issue-comment", ""},
		{"GET", "/api-v3/repos/o/r/issues/1", "issue", ""},
		{"GET", "/api-v3/repos/o/r", "full-repository-default-response", `property "language" is missing`},
		{"GET", "/api-v3/repos/o/r/contents/README.md", "content-file-response-if-content-is-a-file", ""},
		{"GET", "/api-v3/repos/o/r/check-runs/4", "check-run", ""},
		{"GET", "/api-v3/repos/o/r/pulls/1", "pull-request", `property "type" is missing`},
		{"GET", "/api-v3/repos/o/r/pulls", "pull-request-simple-items", `property "type" is missing`},
		{"GET", "/api-v3/repos/o/r/collaborators/u/permission", "repository-collaborator-permission-response-if-user-has-admin-permissions", `property "role_name" is missing`},
		{"GET", "/api-v3/app/hook/deliveries", "hook-delivery-items", ""},
		{"GET", "/api-v3/app", "integration", ""},
		{"GET", "/api-v3/app/installations", "base-installation-items", `property "name" is missing`},
		{"GET", "/api-v3/installation/repositories", "repository-paginated-2", ""},
		{"GET", "/api-v3/repos/o/r/issues", "issue-items", ""},
		{"GET", "/api-v3/repos/o/r/pulls/1/reviews", "pull-request-review-items", ""},
		{"POST", "/api-v3/repos/o/r/pulls/1/reviews", "pull-request-review", ""},
	}
	for _, c := range cases {
		t.Run(c.example, func(t *testing.T) {
			ex, err := s.Example(c.example)
			require.NoError(t, err)
			body, _ := json.Marshal(ex)
			r := httptest.NewRequest(c.method, c.path, nil)
			in, err := s.ValidateRequest(t.Context(), r, base, nil)
			require.NoError(t, err)
			h := http.Header{"Content-Type": {"application/json; charset=utf-8"}}
			err = s.ValidateResponse(t.Context(), in, 200, h, body)
			if c.wantErr == "" {
				require.NoError(t, err)
				return
			}
			require.ErrorContains(t, err, c.wantErr)
		})
	}
}
