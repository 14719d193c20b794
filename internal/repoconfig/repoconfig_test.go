package repoconfig

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/dixit-bot/dixit/internal/ghapp/ghtest"
)

func TestFetch(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(s *ghtest.Server)
		outcome Outcome
		comment string
		check   func(t *testing.T, r Result)
	}{
		{
			name:    "missing: the defaults apply",
			setup:   func(*ghtest.Server) {},
			outcome: Missing,
			check:   func(t *testing.T, r Result) { assert.Equal(t, 5, r.Settings.Coders) },
		},
		{
			name:    "loaded from the default branch",
			setup:   func(s *ghtest.Server) { s.State.SetFile("o", "r", "main", Path, "coders: 7\n") },
			outcome: Loaded,
			check:   func(t *testing.T, r Result) { assert.Equal(t, 7, r.Settings.Coders); assert.Equal(t, "main", r.Branch) },
		},
		{
			name: "a file on another branch is never read",
			setup: func(s *ghtest.Server) {
				s.State.SetFile("o", "r", "feature", Path, "coders: 9\n")
			},
			outcome: Missing,
		},
		{
			name:    "invalid: the comment names the key",
			setup:   func(s *ghtest.Server) { s.State.SetFile("o", "r", "main", Path, "coders: 2\n") },
			outcome: Invalid,
			comment: "coders: must be between 3 and 25 for protocol dixit (got 2)",
		},
		{
			name:    "unknown key",
			setup:   func(s *ghtest.Server) { s.State.SetFile("o", "r", "main", Path, "reruns: 3\nflavour: x\n") },
			outcome: Invalid,
			comment: `unknown key "flavour"`,
		},
		{
			name: "unreadable: GitHub fails",
			setup: func(s *ghtest.Server) {
				s.Inject(ghtest.Fault{Method: http.MethodGet, Path: "repos/o/r/contents/" + Path, Status: http.StatusBadGateway})
			},
			outcome: Unreadable,
			comment: "could not read",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := ghtest.NewServer(t)
			tc.setup(srv)
			r := Fetch(context.Background(), srv.Client(nil), "o", "r")
			require.Equal(t, tc.outcome, r.Outcome, "%v", r.Err)
			if tc.comment != "" {
				assert.Contains(t, r.Comment(), tc.comment)
			} else {
				assert.Empty(t, r.Comment(), "a run can start")
			}
			if tc.check != nil {
				tc.check(t, r)
			}
		})
	}
}
