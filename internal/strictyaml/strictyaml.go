// Package strictyaml decodes a YAML config file into a struct and refuses whatever the
// struct does not describe, with messages a person can act on: the file, the line, the key
// as typed, what was expected in plain words, and the nearest key when one is misspelt.
package strictyaml

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strings"
	"time"

	"gopkg.in/yaml.v3"
)

// maxValues bounds the walk: aliases can make a small file name a huge tree.
const maxValues = 100_000

// Decode reads the YAML document data into v, a pointer to a struct whose yaml tags name
// the keys. Unknown keys, keys set twice, values of the wrong shape or type and YAML that
// does not parse are *Errors naming file (if not ""), the line and the key. An empty
// document leaves v as it was. The Lines returned say where each key was set, so that later
// checks can point at it too (Lines.Locate).
func Decode(file string, data []byte, v any) (Lines, error) {
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); errors.Is(err, io.EOF) {
		return Lines{}, nil
	} else if err != nil {
		return nil, syntaxError(file, data, err)
	}
	var next yaml.Node
	if err := dec.Decode(&next); err == nil && !empty(&next) {
		// A second document would be ignored without a word.
		return nil, &Error{File: file, Line: next.Line, Err: errors.New(`a second document starts here, after "---"; the file must hold one`)}
	} else if err != nil && !errors.Is(err, io.EOF) {
		return nil, syntaxError(file, data, err)
	}
	w := walker{file: file, lines: Lines{}, budget: maxValues}
	if err := w.walk(&doc, reflect.TypeOf(v).Elem(), ""); err != nil {
		return nil, err
	}
	if err := doc.Decode(v); err != nil {
		// The walk refuses all the decoder refuses; should they ever differ, the
		// decoder's message (Go type names) still does not reach the user.
		line := 0
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			_, _ = fmt.Sscanf(te.Errors[0], "line %d:", &line)
		}
		return nil, &Error{File: file, Line: line, Err: errors.New("a value does not fit its key")}
	}
	return w.lines, nil
}

// empty tells a document that holds nothing, such as the one after a closing "---".
func empty(doc *yaml.Node) bool {
	return len(doc.Content) == 0 || doc.Content[0].Kind == yaml.ScalarNode && doc.Content[0].ShortTag() == "!!null"
}

var durationType = reflect.TypeFor[time.Duration]()

type walker struct {
	file   string
	lines  Lines
	budget int
}

// walk checks node n against type t; path is the key as the user typed it.
func (w *walker) walk(n *yaml.Node, t reflect.Type, path string) error {
	if w.budget--; w.budget < 0 {
		return &Error{File: w.file, Line: n.Line, Err: fmt.Errorf("aliases (*name) expand the file to more than %d values", maxValues)}
	}
	for n.Kind == yaml.AliasNode {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode {
		if len(n.Content) == 0 {
			return nil
		}
		n = n.Content[0]
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return nil // an empty value keeps the default
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		return w.scalar(n, t, path)
	case t.Kind() == reflect.Struct:
		return w.section(n, t, path)
	case t.Kind() == reflect.Map:
		return w.pairs(n, t, path)
	case t.Kind() == reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			return w.mismatch(n, t, path)
		}
		for i, item := range n.Content {
			at := fmt.Sprintf("%s[%d]", path, i)
			w.lines[at] = item.Line
			if err := w.walk(item, t.Elem(), at); err != nil {
				return err
			}
		}
		return nil
	}
	return w.scalar(n, t, path)
}

// section checks a mapping against a struct's keys.
func (w *walker) section(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return w.mismatch(n, t, path)
	}
	names, types := keysOf(t)
	return w.each(n, path, func(k, v *yaml.Node, at string) error {
		if k.ShortTag() == "!!merge" { // <<: *defaults, or a list of them
			return w.merge(v, t, path)
		}
		ft, ok := types[k.Value]
		if !ok {
			return w.unknown(k, path, names)
		}
		return w.walk(v, ft, at)
	})
}

func (w *walker) merge(v *yaml.Node, t reflect.Type, path string) error {
	for v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind != yaml.SequenceNode {
		return w.walk(v, t, path)
	}
	for _, item := range v.Content {
		if err := w.walk(item, t, path); err != nil {
			return err
		}
	}
	return nil
}

// pairs checks a mapping of free names, such as environment variables.
func (w *walker) pairs(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.MappingNode {
		return w.mismatch(n, t, path)
	}
	return w.each(n, path, func(k, v *yaml.Node, at string) error {
		if err := w.walk(k, t.Key(), at); err != nil {
			return err
		}
		return w.walk(v, t.Elem(), at)
	})
}

// each visits a mapping's pairs, refusing a key given twice: the decoder would keep one
// of the two without saying which.
func (w *walker) each(n *yaml.Node, path string, visit func(k, v *yaml.Node, at string) error) error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return &Error{File: w.file, Line: k.Line, Key: path, Err: errors.New("a key must be a plain name")}
		}
		at := k.Value
		if path != "" {
			at = path + "." + k.Value
		}
		if first, ok := seen[k.Value]; ok {
			return &Error{File: w.file, Line: k.Line, Key: at, Err: fmt.Errorf("set twice (first on line %d)", first)}
		}
		seen[k.Value] = k.Line
		if k.ShortTag() != "!!merge" {
			w.lines[at] = k.Line
		}
		if err := visit(k, v, at); err != nil {
			return err
		}
	}
	return nil
}

// scalar checks a value the decoder would refuse or silently bend.
func (w *walker) scalar(n *yaml.Node, t reflect.Type, path string) error {
	if n.Kind != yaml.ScalarNode {
		return w.mismatch(n, t, path)
	}
	if t == durationType && n.ShortTag() == "!!int" && n.Value == "0" {
		n.Tag = "!!str" // zero needs no unit ("0 = no cap"), but YAML reads it as a number
	}
	if err := n.Decode(reflect.New(t).Interface()); err != nil {
		return w.mismatch(n, t, path)
	}
	if isInt(t) && n.ShortTag() == "!!float" {
		// The decoder would cut 2.5 down to 2 without a word.
		var f float64
		if err := n.Decode(&f); err != nil || f != math.Trunc(f) {
			return w.mismatch(n, t, path)
		}
	}
	return nil
}

func (w *walker) mismatch(n *yaml.Node, t reflect.Type, path string) error {
	msg := fmt.Sprintf("must be %s (got %s)", describe(t, n), shown(n))
	if path == "" {
		msg = fmt.Sprintf("the file must hold keys and values, one per line (got %s)", shown(n))
	}
	return &Error{File: w.file, Line: n.Line, Key: path, Err: errors.New(msg)}
}

func (w *walker) unknown(k *yaml.Node, path string, names []string) error {
	msg := fmt.Sprintf("unknown key %q", clip(k.Value))
	if path != "" {
		msg += " in " + path
	}
	if s := Suggest(k.Value, names); s != "" {
		msg += fmt.Sprintf("; did you mean %q?", s)
	} else {
		msg += "; the keys here are " + strings.Join(names, ", ")
	}
	return &Error{File: w.file, Line: k.Line, Err: errors.New(msg)}
}

// keysOf lists a struct's keys in declaration order, as yaml.v3 names them.
func keysOf(t reflect.Type) ([]string, map[string]reflect.Type) {
	var names []string
	types := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct:
			inner, innerTypes := keysOf(f.Type)
			names = append(names, inner...)
			for k, v := range innerTypes {
				types[k] = v
			}
			continue
		case name == "":
			name = strings.ToLower(f.Name)
		}
		names = append(names, name)
		types[name] = f.Type
	}
	return names, types
}
