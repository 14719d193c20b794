package ghapp

import (
	"bytes"
	"container/list"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"sync"
)

const defaultETagEntries = 1000

type etagEntry struct {
	key    string
	etag   string
	body   []byte
	header http.Header
}

type etagCache struct {
	mu    sync.Mutex
	max   int
	order *list.List // front: most recently used
	byKey map[string]*list.Element
}

// ETagCache makes GETs conditional: it remembers the ETag and body of each 200 per URL
// and credentials (the Authorization header is hashed, never stored), sends
// If-None-Match, and answers a 304 with the cached body as a 200. GitHub does not count
// 304s against the rate limit. At most maxEntries (0: 1000) are kept, least recently
// used first out.
func ETagCache(maxEntries int) Middleware {
	if maxEntries <= 0 {
		maxEntries = defaultETagEntries
	}
	c := &etagCache{max: maxEntries, order: list.New(), byKey: map[string]*list.Element{}}
	return func(next http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			if r.Method != http.MethodGet || r.Header.Get("If-None-Match") != "" {
				return next.RoundTrip(r)
			}
			return c.roundTrip(next, r)
		})
	}
}

func (c *etagCache) roundTrip(next http.RoundTripper, r *http.Request) (*http.Response, error) {
	sum := sha256.Sum256([]byte(r.Header.Get("Authorization")))
	key := fmt.Sprintf("%x %s", sum[:8], r.URL.String())
	cached := c.get(key)
	if cached != nil {
		r = r.Clone(r.Context())
		r.Header.Set("If-None-Match", cached.etag)
	}
	resp, err := next.RoundTrip(r)
	if err != nil {
		return nil, err
	}
	switch {
	case resp.StatusCode == http.StatusNotModified && cached != nil:
		_ = resp.Body.Close()
		h := cached.header.Clone()
		for k, v := range resp.Header { // fresh rate-limit and request-id headers
			h[k] = v
		}
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Header = h
		resp.Body = io.NopCloser(bytes.NewReader(cached.body))
		resp.ContentLength = int64(len(cached.body))
		observeCacheHit(r.Context())
	case resp.StatusCode == http.StatusOK && resp.Header.Get("ETag") != "":
		body, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("read body of GET %s: %w", r.URL.Path, err)
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		c.put(&etagEntry{key: key, etag: resp.Header.Get("ETag"), body: body, header: resp.Header.Clone()})
	}
	return resp, nil
}

func (c *etagCache) get(key string) *etagEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.byKey[key]
	if !ok {
		return nil
	}
	c.order.MoveToFront(el)
	return el.Value.(*etagEntry)
}

func (c *etagCache) put(e *etagEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.byKey[e.key]; ok {
		el.Value = e
		c.order.MoveToFront(el)
		return
	}
	c.byKey[e.key] = c.order.PushFront(e)
	for c.order.Len() > c.max {
		last := c.order.Back()
		c.order.Remove(last)
		delete(c.byKey, last.Value.(*etagEntry).key)
	}
}
