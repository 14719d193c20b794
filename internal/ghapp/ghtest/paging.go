package ghtest

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
)

// perPage is GitHub's per_page: 30 by default, at most 100.
func perPage(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("per_page"))
	switch {
	case err != nil || n < 1:
		return 30
	case n > 100:
		return 100
	}
	return n
}

// paginate returns the bounds of the requested page (page, per_page) of n items and sets
// GitHub's Link header: prev and first past the first page, next and last before the
// last one.
func (s *Server) paginate(w http.ResponseWriter, r *http.Request, n int) (lo, hi int) {
	per := perPage(r)
	page, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || page < 1 {
		page = 1
	}
	last := max(1, (n+per-1)/per)
	var links []string
	link := func(p int, rel string) {
		q := r.URL.Query()
		q.Set("page", strconv.Itoa(p))
		links = append(links, fmt.Sprintf("<%s?%s>; rel=%q", s.absolute(r), q.Encode(), rel))
	}
	if page > 1 {
		link(min(page-1, last), "prev")
	}
	if page < last {
		link(page+1, "next")
		link(last, "last")
	}
	if page > 1 {
		link(1, "first")
	}
	if len(links) > 0 {
		w.Header().Set("Link", strings.Join(links, ", "))
	}
	lo = min((page-1)*per, n)
	return lo, min(lo+per, n)
}

// absolute is the request's URL without its query, as GitHub writes it in Link headers.
func (s *Server) absolute(r *http.Request) string {
	return strings.TrimSuffix(s.URL, BasePath) + r.URL.Path
}
