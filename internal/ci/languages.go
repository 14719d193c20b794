package ci

import (
	"context"
	"fmt"
	"strings"
)

// language is one ecosystem the judge knows: the contract `preset:` in dixit.yml names,
// and the toolchain `toolchain:` names (what the sandbox mounts from the host, found
// there by asking the host's own tools). Adding a language is one row here, its preset
// and toolchain functions, and their tests.
type language struct {
	name      string
	preset    func() Contract
	toolchain func(ctx context.Context) (toolchain, error)
}

// languages is the table, in the order errors list them.
func languages() []language {
	return []language{
		{name: "go", preset: goPreset, toolchain: goToolchain},
		{name: "python", preset: pythonPreset, toolchain: pythonToolchain},
		{name: "node", preset: nodePreset, toolchain: nodeToolchain},
	}
}

// Languages lists the names `preset:` and `toolchain:` accept.
func Languages() []string {
	var names []string
	for _, l := range languages() {
		names = append(names, l.name)
	}
	return names
}

// LanguageList is Languages for an error message: "go, python or node".
func LanguageList() string {
	names := Languages()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Preset returns the working contract of a language the judge knows.
func Preset(name string) (Contract, bool) {
	for _, l := range languages() {
		if l.name == name {
			return l.preset(), true
		}
	}
	return Contract{}, false
}

// discoverToolchain asks the host where a language's toolchain lives; "" is none (the
// run command needs nothing from the host beyond the sandbox's base).
func discoverToolchain(ctx context.Context, name string) (toolchain, error) {
	if name == "" {
		return toolchain{check: "true"}, nil
	}
	for _, l := range languages() {
		if l.name == name {
			return l.toolchain(ctx)
		}
	}
	return toolchain{}, fmt.Errorf("unknown toolchain %q (want %s or empty)", name, LanguageList())
}
