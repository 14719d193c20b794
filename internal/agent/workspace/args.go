package workspace

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// decode reads a tool's raw JSON arguments into v strictly: one object, the named
// fields only (spelt exactly: encoding/json alone would accept "PATH"), right types.
// Every failure is a toolError worded for the model.
func decode(tool, raw string, v any, names ...string) error {
	if strings.TrimSpace(raw) == "" {
		raw = "{}" // some models send nothing for a call without arguments
	}
	quoted := make([]string, len(names))
	for i, n := range names {
		quoted[i] = strconv.Quote(n)
	}
	fields := strings.Join(quoted, " and ")
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if dec.Decode(new(json.RawMessage)) != io.EOF {
			return toolErrorf("%s arguments: extra data after the JSON object; send one object with %s", tool, fields)
		}
		var keys map[string]json.RawMessage
		json.Unmarshal([]byte(raw), &keys) // decoded once already; null leaves keys empty
		for k := range keys {
			if !slices.Contains(names, k) {
				return toolErrorf("%s has no argument %q; it takes %s", tool, k, fields)
			}
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn), errors.Is(err, io.ErrUnexpectedEOF):
		return toolErrorf("%s arguments are not valid JSON (%v); send one object with %s", tool, err, fields)
	case errors.As(err, &typ) && typ.Field == "":
		return toolErrorf("%s arguments must be a JSON object with %s, not a JSON %s", tool, fields, typ.Value)
	case errors.As(err, &typ):
		return toolErrorf("%s argument %q must be a %s, not a JSON %s", tool, typ.Field, jsonType(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return toolErrorf("%s has no argument %s; it takes %s", tool, strings.TrimPrefix(err.Error(), "json: unknown field "), fields)
	}
	return toolErrorf("%s arguments: %v", tool, err)
}

// jsonType names a Go kind the way a JSON Schema would.
func jsonType(kind string) string {
	switch kind {
	case "bool":
		return "boolean"
	case "string":
		return "string"
	}
	return kind
}

// cleanPath checks a path the model gave and returns it cleaned, slash-separated and
// relative to the workspace root ("." for the root itself, when allowed).
func cleanPath(p string, allowRoot bool) (string, error) {
	switch {
	case p == "" && allowRoot:
		return ".", nil
	case p == "":
		return "", toolErrorf("path is required")
	case strings.ContainsRune(p, 0):
		return "", toolErrorf("path %q contains a NUL byte", p)
	case strings.ContainsRune(p, '\\'): // a separator on Windows: git and the commit refuse it
		return "", toolErrorf("%s: a backslash is not allowed in a path; use \"/\" between directories", p)
	case strings.HasPrefix(p, "/"):
		return "", toolErrorf("%s is an absolute path; use a path relative to the workspace root, like \"src/main.go\"", p)
	}
	for _, elem := range strings.Split(p, "/") {
		if elem == ".." {
			return "", toolErrorf("%s: \"..\" is not allowed; paths start at the workspace root and stay inside it", p)
		}
	}
	clean := path.Clean(p)
	for _, elem := range strings.Split(clean, "/") {
		if gitstate.ReservedName(elem) {
			return "", toolErrorf("%s: %q is a name git reserves; it is off limits", p, elem)
		}
	}
	if clean == "." && !allowRoot {
		return "", toolErrorf("%s is the workspace root; name a file inside it", p)
	}
	return clean, nil
}

// fsError sorts a file system error: the machinery's own failures (disk full, I/O,
// a closed workspace) stay errors, anything else becomes a toolError about rel.
func fsError(rel string, err error) error {
	for _, infra := range []error{syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS,
		syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, os.ErrClosed} {
		if errors.Is(err, infra) {
			return fmt.Errorf("%s: %w", rel, err)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return toolErrorf("%s does not exist", rel)
	case strings.Contains(err.Error(), "path escapes from parent"): // os.Root's refusal
		return toolErrorf("%s leads outside the workspace (through a symbolic link); it cannot be used", rel)
	case errors.Is(err, syscall.ENOTDIR):
		return toolErrorf("%s: a parent of it is not a directory", rel)
	case errors.Is(err, syscall.ELOOP):
		return toolErrorf("%s: too many levels of symbolic links", rel)
	case errors.Is(err, fs.ErrPermission):
		return toolErrorf("%s: permission denied", rel)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return toolErrorf("%s: %v", rel, pe.Err)
	}
	return toolErrorf("%s: %v", rel, err)
}
