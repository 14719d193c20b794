package webhook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// wrongSignature is well formed, so the intake must read the body to find it wrong.
var wrongSignature = signaturePrefix + strings.Repeat("0", 64)

// TestUnsignedBodiesAreBoundedBeforeAuthentication is attack 7 in small: many large
// bodies with a wrong signature arrive at once. The server takes only as many as its
// budget of unverified bytes holds, on disk, never in memory; the others are told 503
// with Retry-After at once, before they send their bodies; none reaches the store or a
// handler; and a delivery of GitHub's usual size still gets in during the flood.
func TestUnsignedBodiesAreBoundedBeforeAuthentication(t *testing.T) {
	const admitted, senders, size = 4, 12, 4 << 20
	h := &fakeHandler{events: []string{"issues"}}
	s := newServer(t, "", Config{MaxUnverifiedBytes: admitted*size + 64<<10, BodyGrace: time.Minute}, h)
	start(t, s)
	srv := httptest.NewServer(s)
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	heap := watchHeap(t)

	// The first senders fill the budget and stop halfway through their bodies.
	var held []*rawDelivery
	for i := range admitted {
		d := openDelivery(t, addr, fmt.Sprintf("d-%d", i), wrongSignature, size)
		d.send(t, size/2)
		held = append(held, d)
	}
	require.Eventually(t, func() bool { n, _ := s.unverified.inUse(); return n == admitted }, waitFor, tick, "the first bodies are being received")

	// The rest are refused before they send a byte of body, without waiting for room.
	for i := admitted; i < senders; i++ {
		d := openDelivery(t, addr, fmt.Sprintf("d-%d", i), wrongSignature, size)
		resp := d.answer(t, time.Second)
		assert.Equal(t, http.StatusServiceUnavailable, resp.StatusCode)
		assert.Equal(t, "5", resp.Header.Get("Retry-After"))
	}
	// A signed delivery of GitHub's usual size fits in what is left.
	labeled := fixture(t, "issues.labeled.json")
	signed := openDelivery(t, addr, "from-github", Sign(testSecret, labeled), int64(len(labeled)))
	signed.sendBytes(t, labeled)
	assert.Equal(t, http.StatusAccepted, signed.answer(t, waitFor).StatusCode)

	for _, d := range held {
		d.send(t, size/2)
		assert.Equal(t, http.StatusUnauthorized, d.answer(t, waitFor).StatusCode)
	}
	grew := heap.stop()
	t.Logf("heap grew by at most %.1f MiB while %d bodies of %d MiB arrived", float64(grew)/(1<<20), senders, size>>20)
	assert.Less(t, grew, int64(size), "the heap held less than one body at any time")
	st := s.Stats()
	assert.Equal(t, uint64(admitted), st.RejectedSignature)
	assert.Equal(t, uint64(senders-admitted), st.RejectedBusy)
	require.NoError(t, s.Shutdown(t.Context()))
	require.Len(t, h.Calls(), 1, "only the signed delivery reaches a handler")
	assert.Equal(t, "from-github", h.Calls()[0].id)
	assertOnlyQueueDirs(t, s.cfg.QueueDir)
	n, b := s.unverified.inUse()
	assert.Equal(t, 0, n, "every body gave its room back")
	assert.Zero(t, b)
}

// TestTheBudgetAlsoCountsBodies: small bodies cannot get round the byte budget by their
// number; one without a declared length is charged the largest body.
func TestTheBudgetAlsoCountsBodies(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		length int64 // of each body; -1 chunked
	}{
		{"many small bodies", Config{MaxUnverified: 2}, 1 << 10},
		{"bodies without a length", Config{MaxBody: 1 << 20, MaxUnverifiedBytes: 2 << 20}, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newServer(t, "", tc.cfg, &fakeHandler{events: []string{"issues"}})
			start(t, s)
			srv := httptest.NewServer(s)
			defer srv.Close()
			addr := srv.Listener.Addr().String()
			for i := range 2 {
				d := openDelivery(t, addr, fmt.Sprintf("d-%d", i), wrongSignature, tc.length)
				d.send(t, 100)
				defer d.conn.Close() // before the server closes: it would wait for their bodies
			}
			require.Eventually(t, func() bool { n, _ := s.unverified.inUse(); return n == 2 }, waitFor, tick)
			third := openDelivery(t, addr, "d-2", wrongSignature, tc.length)
			assert.Equal(t, http.StatusServiceUnavailable, third.answer(t, time.Second).StatusCode)
		})
	}
}

// TestABodyIsRefusedAsSoonAsItCrossesTheBound: a declared length over MaxBody is refused
// before the body is sent; a chunked body is refused at the byte that crosses the bound,
// while its sender is still sending.
func TestABodyIsRefusedAsSoonAsItCrossesTheBound(t *testing.T) {
	const bound = 1 << 20
	s := newServer(t, "", Config{MaxBody: bound}, &fakeHandler{events: []string{"issues"}})
	start(t, s)
	srv := httptest.NewServer(s)
	defer srv.Close()
	addr := srv.Listener.Addr().String()

	declared := openDelivery(t, addr, "d-1", Sign(testSecret, nil), bound+1)
	assert.Equal(t, http.StatusRequestEntityTooLarge, declared.answer(t, time.Second).StatusCode)

	chunked := openDelivery(t, addr, "d-2", Sign(testSecret, nil), -1)
	chunked.send(t, bound)
	chunked.send(t, 1) // the sender goes on sending; the server does not wait for the end
	assert.Equal(t, http.StatusRequestEntityTooLarge, chunked.answer(t, waitFor).StatusCode)
	assert.Equal(t, uint64(2), s.Stats().RejectedTooLarge)
	assertOnlyQueueDirs(t, s.cfg.QueueDir)
}

// TestASlowBodyIsCutOffAndGivesItsRoomBack: a sender that stalls is cut off once it falls
// under MinBodyRate after BodyGrace, and one that keeps pace but never ends, at BodyTimeout.
func TestASlowBodyIsCutOffAndGivesItsRoomBack(t *testing.T) {
	for _, tc := range []struct {
		name   string
		cfg    Config
		every  time.Duration // a 1 KiB chunk this often; 0: nothing after the first
		cutoff time.Duration // when the server must have answered
	}{
		{"stalls", Config{MinBodyRate: 1 << 20, BodyGrace: 200 * time.Millisecond}, 0, 2 * time.Second},
		{"trickles past the body timeout", Config{MinBodyRate: 1 << 10, BodyGrace: time.Minute, BodyTimeout: 500 * time.Millisecond},
			50 * time.Millisecond, 3 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.MaxUnverified = 1
			s := newServer(t, "", tc.cfg, &fakeHandler{events: []string{"issues"}})
			start(t, s)
			srv := httptest.NewServer(s)
			defer srv.Close()
			d := openDelivery(t, srv.Listener.Addr().String(), "d-1", wrongSignature, 1<<20)
			began := time.Now()
			d.send(t, 1<<10)
			var resp *http.Response
			for resp == nil && time.Since(began) < tc.cutoff {
				if tc.every > 0 {
					d.send(t, 1<<10)
				}
				resp = d.answerOrNil(max(tc.every, 10*time.Millisecond))
			}
			require.NotNil(t, resp, "the slow body was still being received after %s", tc.cutoff)
			assert.Equal(t, http.StatusRequestTimeout, resp.StatusCode)
			assert.Equal(t, uint64(1), s.Stats().RejectedSlow)
			require.Eventually(t, func() bool { n, _ := s.unverified.inUse(); return n == 0 }, waitFor, tick, "its room is free again")
		})
	}
}

// TestALargeSignedDeliveryStreamsToTheStoreIntact: the streamed path keeps every
// guarantee of the small one: the exact bytes reach the handler, once, and nothing is
// left of the temporary file.
func TestALargeSignedDeliveryStreamsToTheStoreIntact(t *testing.T) {
	var p map[string]any
	require.NoError(t, json.Unmarshal(fixture(t, "issues.labeled.json"), &p))
	p["issue"].(map[string]any)["body"] = strings.Repeat("a long spec. ", 3<<20/13)
	body, err := json.Marshal(p)
	require.NoError(t, err)
	h := &fakeHandler{events: []string{"issues"}}
	s := newServer(t, "", Config{}, h)
	start(t, s)
	srv := httptest.NewServer(s)
	defer srv.Close()

	d := openDelivery(t, srv.Listener.Addr().String(), "d-big", Sign(testSecret, body), -1)
	for rest := body; len(rest) > 0; rest = rest[min(len(rest), 64<<10):] {
		d.sendBytes(t, rest[:min(len(rest), 64<<10)])
	}
	d.end(t)
	assert.Equal(t, http.StatusAccepted, d.answer(t, waitFor).StatusCode)
	require.Eventually(t, func() bool { return len(h.Calls()) == 1 }, waitFor, tick)
	assert.Equal(t, body, h.Calls()[0].payload, "the handler receives exactly the bytes signed")
	redelivered := deliver(t, s, "issues", "d-big", body)
	assert.Equal(t, "duplicate\n", redelivered.Body.String())
	require.NoError(t, s.Shutdown(t.Context()))
	assertOnlyQueueDirs(t, s.cfg.QueueDir)
}

// rawDelivery is a delivery written by hand on a TCP connection, so a test decides how
// much of the body to send and when, and sees the answer as soon as the server gives it.
type rawDelivery struct {
	conn    net.Conn
	chunked bool
	resp    chan *http.Response
}

// openDelivery sends the headers of an issues delivery; length -1 means a chunked body.
func openDelivery(t *testing.T, addr, id, signature string, length int64) *rawDelivery {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	t.Cleanup(func() { conn.Close() })
	d := &rawDelivery{conn: conn, chunked: length < 0, resp: make(chan *http.Response, 1)}
	framing := fmt.Sprintf("Content-Length: %d", length)
	if d.chunked {
		framing = "Transfer-Encoding: chunked"
	}
	_, err = fmt.Fprintf(conn, "POST /webhook HTTP/1.1\r\nHost: dixit.test\r\nContent-Type: application/json\r\n%s\r\n"+
		"X-GitHub-Event: issues\r\nX-GitHub-Delivery: %s\r\nX-Hub-Signature-256: %s\r\n\r\n", framing, id, signature)
	require.NoError(t, err)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			resp = nil
		}
		d.resp <- resp
	}()
	return d
}

// filler is what bodies are made of, sent piece by piece: a whole body in the test's
// own memory would blur what the server's heap holds.
var filler = bytes.Repeat([]byte("a"), 16<<10)

// send writes n bytes of filler body.
func (d *rawDelivery) send(t *testing.T, n int) {
	t.Helper()
	for ; n > 0; n -= len(filler) {
		d.sendBytes(t, filler[:min(n, len(filler))])
	}
}

// sendBytes writes b. The server may already have answered and closed the connection,
// so a failed write is no failure of the test: the answer says what happened.
func (d *rawDelivery) sendBytes(t *testing.T, b []byte) {
	t.Helper()
	if d.chunked {
		_, _ = fmt.Fprintf(d.conn, "%x\r\n%s\r\n", len(b), b)
		return
	}
	_, _ = d.conn.Write(b)
}

// end finishes a chunked body.
func (d *rawDelivery) end(t *testing.T) {
	t.Helper()
	_, err := io.WriteString(d.conn, "0\r\n\r\n")
	require.NoError(t, err)
}

func (d *rawDelivery) answer(t *testing.T, within time.Duration) *http.Response {
	t.Helper()
	resp := d.answerOrNil(within)
	require.NotNil(t, resp, "no answer within %s", within)
	return resp
}

func (d *rawDelivery) answerOrNil(within time.Duration) *http.Response {
	select {
	case resp := <-d.resp:
		if resp == nil {
			d.resp <- nil // the connection ended without an answer; say so again
		}
		return resp
	case <-time.After(within):
		return nil
	}
}

// heapWatch samples the live heap until stopped and reports how far it rose.
type heapWatch struct {
	base, peak atomic.Int64
	done       chan struct{}
	wg         sync.WaitGroup
}

func watchHeap(t *testing.T) *heapWatch {
	t.Helper()
	runtime.GC()
	w := &heapWatch{done: make(chan struct{})}
	w.base.Store(liveHeap())
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		for {
			w.peak.Store(max(w.peak.Load(), liveHeap()))
			select {
			case <-w.done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *heapWatch) stop() int64 {
	close(w.done)
	w.wg.Wait()
	return w.peak.Load() - w.base.Load()
}

// liveHeap reads the bytes of heap objects, live or not yet collected, without stopping
// the world.
func liveHeap() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return int64(s[0].Value.Uint64())
}

// assertOnlyQueueDirs checks that no body file was left behind in the queue directory.
func assertOnlyQueueDirs(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		if e.Name() != doneDir && e.Name() != failedDir {
			names = append(names, e.Name())
		}
	}
	assert.Empty(t, names, "files left in the queue directory")
}
