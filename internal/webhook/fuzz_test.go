package webhook

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// FuzzServeHTTP signs arbitrary bodies as arbitrary events, as GitHub or an attacker who
// knows the secret could: the intake never fails with a 5xx or a panic, and it accepts
// (202) only payloads that parse as the event they claim to be; an event no handler
// takes is acknowledged and dropped, checked only if go-github knows its shape.
func FuzzServeHTTP(f *testing.F) {
	for _, c := range []struct{ event, file string }{
		{"issues", "issues.labeled.json"}, {"issue_comment", "issue_comment.created.json"},
		{"workflow_run", "workflow_run.completed.json"}, {"ping", "ping.json"},
	} {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(c.event, data)
	}
	f.Add("issues", []byte(`{"action": "labeled", "issue": 7}`))
	f.Add("no_such_event", []byte(`not json`))
	f.Add("", []byte{})
	// Every accepted delivery is synced to disk; on tmpfs that costs nothing, so the fuzzer
	// tries inputs instead of waiting for the disk.
	queue := f.TempDir()
	if dir, err := os.MkdirTemp("/dev/shm", "dixit-fuzz-"); err == nil {
		queue = dir
		f.Cleanup(func() { os.RemoveAll(dir) })
	}
	s, err := New(Config{QueueDir: queue, Secret: testSecret}, &fakeHandler{events: []string{"issues", "issue_comment"}})
	if err != nil {
		f.Fatal(err)
	}
	if err := s.Start(context.Background()); err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Shutdown(context.Background()) })
	n := 0
	f.Fuzz(func(t *testing.T, event string, body []byte) {
		n++
		req, err := SignedRequest("http://dixit.test/webhook", testSecret, event, fmt.Sprintf("fuzz-%d", n), body)
		if err != nil {
			t.Skip() // not a request net/http can build (a header with a newline)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		switch {
		case rec.Code >= 500:
			t.Fatalf("event %q: status %d: %s", event, rec.Code, rec.Body)
		case rec.Code == http.StatusAccepted:
			claimed := event == "issues" || event == "issue_comment"
			if err := validate(event, body, claimed); err != nil {
				t.Fatalf("event %q accepted although %v", event, err)
			}
		}
	})
}
