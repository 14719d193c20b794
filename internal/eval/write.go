package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// Write writes eval.json, eval.md, eval.html and eval.svg into dir and returns their paths.
func Write(dir string, r *Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("write the evaluation: %w", err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode eval.json: %w", err)
	}
	page, err := HTML(r)
	if err != nil {
		return nil, err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"eval.json", append(data, '\n')},
		{"eval.md", []byte(Markdown(r, ""))},
		{"eval.html", []byte(page)},
		{"eval.svg", []byte(SVG(r) + "\n")},
	}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return nil, fmt.Errorf("write the evaluation: %w", err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// HTML renders the Markdown report as one self-contained page, the plot inline. The
// Markdown's own raw HTML is the plot; names from the benchmark sit in code spans or are
// plain words the renderer escapes.
func HTML(r *Report) (string, error) {
	gm := goldmark.New(goldmark.WithExtensions(extension.Table), goldmark.WithRendererOptions(gmhtml.WithUnsafe()))
	var body bytes.Buffer
	if err := gm.Convert([]byte(Markdown(r, SVG(r))), &body); err != nil {
		return "", fmt.Errorf("render the evaluation as HTML: %w", err)
	}
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>Dixit protocol evaluation</title>
<style>` + pageStyle + `</style>
</head><body><main>
` + body.String() + "</main></body></html>\n", nil
}

const pageStyle = `
body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff;margin:0}
main{max-width:72rem;margin:0 auto;padding:1.5rem}
h1,h2{border-bottom:1px solid #d1d9e0;padding-bottom:.3em}
table{border-collapse:collapse;margin:1em 0;display:block;overflow:auto}
th,td{border:1px solid #d1d9e0;padding:.3em .7em;text-align:left;vertical-align:top}
tr:nth-child(2n){background:#f6f8fa}
code{font:13px ui-monospace,SFMono-Regular,Menlo,monospace;background:#eff1f3;padding:.1em .3em;border-radius:4px}
`
