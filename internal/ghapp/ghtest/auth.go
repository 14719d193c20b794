package ghtest

import (
	"net/http"
	"strconv"
	"strings"
)

// Unauthenticated and wrongly authenticated requests get 401, whatever the operation;
// GitHub documents that in one place, so such responses are not checked against the
// description (see serve).

// appAuth checks that r is authenticated as the App: "Bearer <jwt>". An installation
// token the fake issued is not a JWT.
func appAuth(w http.ResponseWriter, r *http.Request) bool {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok || tok == "" || strings.HasPrefix(tok, "ghs_") {
		writeJSON(w, http.StatusUnauthorized, obj{
			"message": "A JSON web token could not be decoded", "documentation_url": "https://docs.github.com/rest",
		})
		return false
	}
	return true
}

// installationAuth checks that r carries a token ("token X" or "Bearer X") and returns
// the installation of a token the fake issued (ghs_fake_<installation>_<n>), or 0 for
// any other token.
func installationAuth(w http.ResponseWriter, r *http.Request) (int64, bool) {
	auth := r.Header.Get("Authorization")
	tok, ok := strings.CutPrefix(auth, "token ")
	if !ok {
		tok, ok = strings.CutPrefix(auth, "Bearer ")
	}
	if !ok || tok == "" {
		writeJSON(w, http.StatusUnauthorized, obj{
			"message": "Requires authentication", "documentation_url": "https://docs.github.com/rest",
		})
		return 0, false
	}
	return tokenInstallation(tok), true
}

func tokenInstallation(tok string) int64 {
	rest, ok := strings.CutPrefix(tok, "ghs_fake_")
	if !ok {
		return 0
	}
	inst, _, ok := strings.Cut(rest, "_")
	if !ok {
		return 0
	}
	id, err := strconv.ParseInt(inst, 10, 64)
	if err != nil {
		return 0
	}
	return id
}
