package strictyaml

import (
	"fmt"
	"strings"
)

// Error is a mistake in a config file, located so a person can fix it: "dixit.yml line 3:
// test.timeout: must be a duration such as 90s, 5m or 1h (got 30)".
type Error struct {
	File string // "" when the caller has no file name
	Line int    // 0 when unknown
	Key  string // as the user typed it: test.timeout, agents.coders[1].name; "" for the file
	Err  error  // what is wrong, in plain words
}

func (e *Error) Error() string {
	var b strings.Builder
	switch {
	case e.File != "" && e.Line > 0:
		fmt.Fprintf(&b, "%s line %d: ", e.File, e.Line)
	case e.File != "":
		b.WriteString(e.File + ": ")
	case e.Line > 0:
		fmt.Fprintf(&b, "line %d: ", e.Line)
	}
	if e.Key != "" {
		b.WriteString(e.Key + ": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf reports a bad value of key, for checks after decoding (Validate); Locate then adds
// the file and the line.
func Errorf(key, format string, args ...any) error {
	return &Error{Key: key, Err: fmt.Errorf(format, args...)}
}

// Lines maps each key path set in a file (test.timeout, agents.coders[1]) to its line.
type Lines map[string]int

// Locate points err at the file and, when it is an *Error whose key (or the section
// holding it) was set in the file, at that line. Other errors get the file name in front.
func (l Lines) Locate(file string, err error) error {
	if err == nil {
		return nil
	}
	e, ok := err.(*Error) // only a bare one: rewriting a wrapped one would drop its wrapper
	if !ok {
		if file == "" {
			return err
		}
		return fmt.Errorf("%s: %w", file, err)
	}
	located := *e
	if located.File == "" {
		located.File = file
	}
	if located.Line == 0 {
		located.Line = l.line(e.Key)
	}
	return &located
}

// line finds key, else the nearest section that holds it: a default that fails a check
// is fixed in the section where it would be set.
func (l Lines) line(key string) int {
	for key != "" {
		if n, ok := l[key]; ok {
			return n
		}
		i := strings.LastIndexAny(key, ".[")
		if i < 0 {
			return 0
		}
		key = key[:i]
	}
	return 0
}
