package webhook_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dixit-bot/dixit/internal/webhook"
)

// TestLoad sends signed deliveries over TCP loopback at a fixed, open-loop rate to a
// server whose queue is on disk, and checks that every acknowledged delivery reaches the
// handler exactly once, duplicates included, and that a request the intake refuses as
// overload gets a 503 before its body is read and never reaches the handler; at the
// default rate none may be refused. It runs 2 s at 200 req/s by default;
// DIXIT_LOAD (a duration) and DIXIT_LOAD_RATE (req/s) make it the benchmark documented
// in docs/performance.md. Timings are logged, never asserted: CI machines vary.
func TestLoad(t *testing.T) {
	duration, rate := loadParams(t)
	body, err := os.ReadFile(filepath.Join("testdata", "issues.labeled.json"))
	if err != nil {
		t.Fatalf("read payload: %v", err)
	}
	secret := []byte("load-secret")
	queue := t.TempDir()
	h := newCountingHandler()
	// The same settings as `bot serve`: default workers and queue, the http.Server's timeouts.
	hook, err := webhook.New(webhook.Config{Secret: secret, QueueDir: queue, Workers: 4}, h)
	if err != nil {
		t.Fatalf("new webhook server: %v", err)
	}
	if err := hook.Start(context.Background()); err != nil {
		t.Fatalf("start webhook server: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	mux := http.NewServeMux()
	mux.Handle("POST /webhook", hook)
	srv := &http.Server{
		Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 32 << 10,
	}
	go func() { _ = srv.Serve(ln) }()
	defer srv.Close()
	url := "http://" + ln.Addr().String() + "/webhook"

	// Keep-alive connections, as many as the open loop needs: a cap here would queue
	// requests in the client and hide the server's latency.
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 1024}}
	defer client.CloseIdleConnections()

	plan := loadPlan(int(duration.Seconds()*float64(rate)), 20)
	interval := time.Second / time.Duration(rate)
	results := make([]sent, len(plan))
	var wg sync.WaitGroup
	begin := time.Now()
	var lag time.Duration // how late the generator itself started a request
	for i, id := range plan {
		due := begin.Add(time.Duration(i) * interval)
		if d := time.Until(due); d > 0 {
			time.Sleep(d)
		}
		lag = max(lag, time.Since(due))
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = send(client, url, secret, id, body, due)
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)

	unique := map[string]bool{}
	for _, id := range plan {
		unique[id] = true
	}
	acked, shed := checkAcks(t, plan, results)
	if shed > 0 && !loadFromEnv() {
		t.Errorf("%d of %d requests refused as overload at %d req/s: an ordinary rate must never see a 503", shed, len(plan), rate)
	}
	// Draining takes long only if the workers fall behind; the bound is generous so that a
	// slow CI machine shows up as a figure, not a failure.
	deadline := time.Now().Add(time.Minute + duration)
	for h.distinct() < len(acked) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	drained := time.Since(begin)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := hook.Shutdown(ctx); err != nil {
		t.Fatalf("shut down webhook server: %v", err)
	}

	lost, twice := h.check(t, acked)
	st := hook.Stats()
	// Each acknowledged id was accepted once; every other acknowledgement was a duplicate.
	dups := len(plan) - shed - len(acked)
	if st.Accepted != uint64(len(acked)) || st.Duplicate != uint64(dups) || st.Processed != uint64(len(acked)) || st.Failed != 0 || st.RejectedBusy != uint64(shed) {
		t.Errorf("stats %+v, want %d accepted and processed, %d duplicates, %d refused as overload", st, len(acked), dups, shed)
	}
	if pending := jsonFiles(t, queue); len(pending) != 0 {
		t.Errorf("%d deliveries still pending on disk after the drain", len(pending))
	}
	if done := jsonFiles(t, filepath.Join(queue, "done")); len(done) != len(acked) {
		t.Errorf("%d deliveries filed under done/, want %d", len(done), len(acked))
	}

	// done/ is never pruned: what it costs on disk, and to recover at the next start.
	doneBytes, err := dirBytes(filepath.Join(queue, "done"))
	if err != nil {
		t.Fatal(err)
	}
	restart := time.Now()
	again, err := webhook.New(webhook.Config{Secret: secret, QueueDir: queue}, h)
	if err != nil {
		t.Fatalf("restart on the same queue: %v", err)
	}
	recovered := time.Since(restart)
	for id := range acked {
		if !again.Seen(id) {
			t.Errorf("delivery %s forgotten after a restart: a redelivery would run it again", id)
			break
		}
	}

	var ack []time.Duration // of acknowledgements only: a refusal is quick by design
	for _, r := range results {
		if r.err == nil && r.status/100 == 2 {
			ack = append(ack, r.latency)
		}
	}
	handled := h.latencies(results, plan)
	t.Logf("load: %d requests (%d unique, %d duplicates) at %d req/s for %s; queue on %s", len(plan), len(unique), len(plan)-len(unique), rate, duration, queue)
	t.Logf("ack latency: p50 %s p90 %s p99 %s max %s", pct(ack, 50), pct(ack, 90), pct(ack, 99), pct(ack, 100))
	t.Logf("to handler: p50 %s p90 %s p99 %s max %s (from scheduled send to Handle)", pct(handled, 50), pct(handled, 90), pct(handled, 99), pct(handled, 100))
	t.Logf("throughput: %.1f acks/s; all handled %.2f s after the first send; generator lag max %s", float64(len(ack))/elapsed.Seconds(), drained.Seconds(), lag)
	t.Logf("lost: %d; handled more than once: %d; refused as overload (503): %d", lost, twice, shed)
	t.Logf("done/: %d files, %.1f MiB (%.1f KiB per delivery); a restart recovers them in %s", len(acked), float64(doneBytes)/(1<<20), float64(doneBytes)/1024/float64(max(len(acked), 1)), recovered.Round(time.Millisecond))
}

// loadFromEnv reports whether the load was set by hand: a benchmark, not the default test.
func loadFromEnv() bool { return os.Getenv("DIXIT_LOAD") != "" || os.Getenv("DIXIT_LOAD_RATE") != "" }

// loadParams reads DIXIT_LOAD and DIXIT_LOAD_RATE.
func loadParams(t *testing.T) (time.Duration, int) {
	duration, rate := 2*time.Second, 200
	if v := os.Getenv("DIXIT_LOAD"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			t.Fatalf("DIXIT_LOAD=%q: want a positive duration such as 60s", v)
		}
		duration = d
	}
	if v := os.Getenv("DIXIT_LOAD_RATE"); v != "" {
		r, err := strconv.Atoi(v)
		if err != nil || r <= 0 || r > 100000 {
			t.Fatalf("DIXIT_LOAD_RATE=%q: want requests per second between 1 and 100000", v)
		}
		rate = r
	}
	return duration, rate
}

// loadPlan returns the delivery id of each request: fresh GUID-like ids, except that every
// dupEvery-th request redelivers the id sent dupEvery/2 slots earlier, as GitHub does when
// it missed an acknowledgement.
func loadPlan(n, dupEvery int) []string {
	plan := make([]string, n)
	for i := range plan {
		if i%dupEvery == dupEvery-1 {
			plan[i] = plan[i-dupEvery/2]
			continue
		}
		plan[i] = fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
	}
	return plan
}

// sent is one request's outcome; latency runs from its scheduled time, so a server that
// falls behind is charged for the wait (no coordinated omission).
type sent struct {
	due     time.Time
	status  int
	body    string
	err     error
	latency time.Duration
}

func send(client *http.Client, url string, secret []byte, id string, body []byte, due time.Time) sent {
	req, err := webhook.SignedRequest(url, secret, "issues", id, body)
	if err != nil {
		return sent{due: due, err: err}
	}
	resp, err := client.Do(req)
	if err != nil {
		return sent{due: due, err: fmt.Errorf("post delivery %s: %w", id, err), latency: time.Since(due)}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return sent{due: due, err: fmt.Errorf("read answer to delivery %s: %w", id, err), latency: time.Since(due)}
	}
	return sent{due: due, status: resp.StatusCode, body: strings.TrimSpace(string(b)), latency: time.Since(due)}
}

// checkAcks checks that every request was acknowledged or refused as overload (503,
// before its body was read), and that each id was accepted by exactly one of its requests,
// the others answered as duplicates. It returns the ids acknowledged, which must all reach
// the handler, and how many requests were refused.
func checkAcks(t *testing.T, plan []string, results []sent) (map[string]bool, int) {
	t.Helper()
	accepted := map[string]int{}
	failed, shed := 0, 0
	for i, r := range results {
		switch {
		case r.err == nil && r.status == http.StatusServiceUnavailable && r.body == "too many deliveries being received":
			shed++
		case r.err != nil:
			failed++
			if failed <= 5 {
				t.Errorf("request %d: %v", i, r.err)
			}
		case r.status == http.StatusAccepted && r.body == "accepted":
			accepted[plan[i]]++
		case r.status/100 == 2 && r.body == "duplicate":
		default:
			failed++
			if failed <= 5 {
				t.Errorf("request %d (%s): status %d %q", i, plan[i], r.status, r.body)
			}
		}
	}
	if failed > 0 {
		t.Errorf("%d of %d requests not acknowledged", failed, len(results))
	}
	acked := map[string]bool{}
	for i, r := range results {
		if r.err == nil && r.status/100 == 2 {
			acked[plan[i]] = true
		}
	}
	for id := range acked {
		if accepted[id] != 1 {
			t.Errorf("delivery %s accepted %d times, want once (the rest as duplicates)", id, accepted[id])
		}
	}
	return acked, shed
}

// countingHandler counts the calls per delivery id and notes when each first came.
type countingHandler struct {
	mu    sync.Mutex
	calls map[string]int
	first map[string]time.Time
}

func newCountingHandler() *countingHandler {
	return &countingHandler{calls: map[string]int{}, first: map[string]time.Time{}}
}

func (h *countingHandler) Handles() []string { return []string{"issues"} }

func (h *countingHandler) Handle(_ context.Context, event, id string, payload []byte) error {
	if event != "issues" || len(payload) == 0 {
		return errors.New("unexpected delivery")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls[id] == 0 {
		h.first[id] = time.Now()
	}
	h.calls[id]++
	return nil
}

func (h *countingHandler) distinct() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.calls)
}

// check reports acknowledged ids never handled (lost) and ids handled more than once,
// and fails on either, or on an id handled that was never acknowledged.
func (h *countingHandler) check(t *testing.T, acked map[string]bool) (lost, twice int) {
	t.Helper()
	h.mu.Lock()
	defer h.mu.Unlock()
	for id := range acked {
		switch n := h.calls[id]; {
		case n == 0:
			lost++
		case n > 1:
			twice++
		}
	}
	for id := range h.calls {
		if !acked[id] {
			t.Errorf("delivery %s handled but never acknowledged", id)
		}
	}
	if lost > 0 || twice > 0 {
		t.Errorf("%d acknowledged deliveries lost, %d handled more than once", lost, twice)
	}
	return lost, twice
}

// latencies returns, per unique delivery, the time from its first scheduled send to its
// first Handle.
func (h *countingHandler) latencies(results []sent, plan []string) []time.Duration {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []time.Duration
	seen := map[string]bool{}
	for i, id := range plan {
		at, ok := h.first[id]
		if seen[id] || !ok {
			continue
		}
		seen[id] = true
		out = append(out, at.Sub(results[i].due))
	}
	return out
}

func pct(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (p*len(s)+99)/100 - 1 // nearest rank
	return s[max(i, 0)].Round(10 * time.Microsecond)
}

func jsonFiles(t *testing.T, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return m
}

func dirBytes(dir string) (int64, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", dir, err)
	}
	var n int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil {
			return 0, fmt.Errorf("stat %s: %w", e.Name(), err)
		}
		n += info.Size()
	}
	return n, nil
}
