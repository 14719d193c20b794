package strictyaml

import (
	"fmt"
	"reflect"

	"gopkg.in/yaml.v3"
)

// Describe says in plain words what a value of v's type must look like, for messages about
// values that come from elsewhere (environment variables).
func Describe(v any) string {
	return describe(reflect.TypeOf(v), nil)
}

// describe says what a value of t looks like; n, when known, is what the user wrote.
func describe(t reflect.Type, n *yaml.Node) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == durationType:
		if n != nil && (n.ShortTag() == "!!int" || n.ShortTag() == "!!float") {
			return fmt.Sprintf("a duration with a unit, such as %ss or %sm", n.Value, n.Value)
		}
		return "a duration such as 90s, 5m or 1h"
	case isInt(t):
		return "a whole number"
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return "a number"
	case t.Kind() == reflect.Bool:
		return "true or false"
	case t.Kind() == reflect.String:
		return "text"
	case t.Kind() == reflect.Slice:
		return "a list, such as [a, b] or lines that start with -"
	case t.Kind() == reflect.Map:
		return "a section of names and values"
	case t.Kind() == reflect.Struct:
		return "a section of keys"
	}
	return "a different kind of value"
}

func isInt(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return t != durationType
	}
	return false
}

// shown is what the user wrote, in a form a message can quote.
func shown(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "a list"
	case yaml.MappingNode:
		return "a section of keys"
	}
	if n.ShortTag() == "!!str" {
		return fmt.Sprintf("%q", clip(n.Value))
	}
	return clip(n.Value)
}

// clip keeps a quoted value short: it may be long, or a secret pasted in the wrong place.
func clip(s string) string {
	const limit = 40
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}
