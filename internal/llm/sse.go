package llm

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxEvent bounds one server-sent event; a chunk is a few hundred bytes, a whole
// tool call in one chunk (Ollama) a few hundred kilobytes at most.
const maxEvent = 8 << 20

// sseReader reads server-sent events as the spec frames them: "field: value" lines,
// an empty line ending an event, several data lines joined by newlines, comment lines
// (": OPENROUTER PROCESSING") ignored, CRLF or LF line ends.
type sseReader struct {
	r     *bufio.Reader
	atEOF bool
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{r: bufio.NewReaderSize(r, 64<<10)} }

// event is one dispatched event. llama.cpp's server sends its errors as "error: {...}";
// such a field arrives as an event named "error".
type event struct {
	name string
	data []byte
}

// next returns the next event with data, or io.EOF after the last one. The last event
// may lack its blank line; atEOF then tells it apart from a stream that went on.
func (s *sseReader) next() (event, error) {
	var ev event
	var data bytes.Buffer
	has := false
	for {
		line, err := s.line()
		if errors.Is(err, io.EOF) {
			s.atEOF = true
			if has {
				ev.data = data.Bytes()
				return ev, nil
			}
			return event{}, io.EOF
		}
		if err != nil {
			return event{}, err
		}
		if len(line) == 0 {
			if has {
				ev.data = data.Bytes()
				return ev, nil
			}
			ev = event{}
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "": // a comment
		case "event":
			ev.name = string(value)
		case "data", "error":
			if string(field) == "error" {
				ev.name = "error"
			}
			if has {
				data.WriteByte('\n')
			}
			has = true
			data.Write(value)
			if data.Len() > maxEvent {
				return event{}, fmt.Errorf("llm: a stream event exceeds %d bytes", maxEvent)
			}
		}
	}
}

// line reads one line without its line end.
func (s *sseReader) line() ([]byte, error) {
	var out []byte
	for {
		part, err := s.r.ReadSlice('\n')
		out = append(out, part...)
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(out) > maxEvent {
				return nil, fmt.Errorf("llm: a stream line exceeds %d bytes", maxEvent)
			}
			continue
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if errors.Is(err, io.EOF) && len(out) == 0 {
			return nil, io.EOF
		}
		return bytes.TrimRight(out, "\r\n"), nil
	}
}
