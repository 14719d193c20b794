package llmtest

import (
	"bufio"
	"bytes"
	"embed"
	"fmt"
	"io"
	"net/http"
	"path"
	"sort"
	"strings"
)

// The corpus: replies in the shapes real servers send, one raw HTTP response per file
// (status line, headers, blank line, body). testdata/recorded/README.md says where
// each comes from and under which licence.
//
//go:embed testdata/recorded/*.http
var corpus embed.FS

// Recorded is the step that replays testdata/recorded/<name>.http as the server sent
// it: its status, headers and body, a text/event-stream body event by event, each
// flushed as it would arrive (ChunkDelay, Drop and DropAfter apply per event).
func Recorded(name string) Step { return Step{Recorded: name} }

// RecordedNames lists the corpus, sorted.
func RecordedNames() []string {
	entries, err := corpus.ReadDir("testdata/recorded")
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range entries {
		if n, ok := strings.CutSuffix(e.Name(), ".http"); ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

// recording is one parsed file of the corpus.
type recording struct {
	status int
	header http.Header
	body   []byte
}

func (r *recording) streamed() bool {
	return strings.HasPrefix(r.header.Get("Content-Type"), "text/event-stream")
}

func loadRecording(name string) (*recording, error) {
	raw, err := corpus.ReadFile(path.Join("testdata/recorded", name+".http"))
	if err != nil {
		return nil, fmt.Errorf("llmtest: no recorded response %q (see RecordedNames): %w", name, err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(raw)), nil)
	if err != nil {
		return nil, fmt.Errorf("llmtest: recorded response %q: %w", name, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("llmtest: recorded response %q: %w", name, err)
	}
	resp.Header.Del("Content-Length") // the body is written as it is, its length recomputed
	return &recording{status: resp.StatusCode, header: resp.Header, body: body}, nil
}

// replay answers with the recorded response st names.
func (s *Server) replay(w http.ResponseWriter, r *http.Request, rec RecordedRequest, st Step) {
	recd, err := loadRecording(st.Recorded)
	if err != nil {
		s.tb.Error(err)
		writeError(w, http.StatusInternalServerError, nil, APIError{Message: err.Error(), Type: "llmtest"})
		return
	}
	if recd.streamed() && !rec.Stream {
		s.tb.Errorf("llmtest: recorded stream %q replayed to request #%d, which did not ask to stream", st.Recorded, rec.Index)
	}
	for k, vs := range recd.header {
		w.Header()[k] = vs
	}
	w.WriteHeader(recd.status)
	if !recd.streamed() {
		_, _ = w.Write(recd.body)
		return
	}
	flush(w)
	for n, ev := range events(recd.body) {
		if st.Drop && n == st.DropAfter {
			hangUp(w)
			return
		}
		if n > 0 && !wait(r.Context(), st.ChunkDelay) {
			return
		}
		if _, err := w.Write(ev); err != nil {
			return // the client stopped reading
		}
		flush(w)
	}
}

// events splits an event-stream body after each blank line, keeping the bytes as
// they are.
func events(body []byte) [][]byte {
	var out [][]byte
	for len(body) > 0 {
		end := len(body)
		for _, sep := range [][]byte{[]byte("\n\n"), []byte("\r\n\r\n")} {
			if i := bytes.Index(body, sep); i >= 0 && i+len(sep) < end {
				end = i + len(sep)
			}
		}
		out = append(out, body[:end])
		body = body[end:]
	}
	return out
}
