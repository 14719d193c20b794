package eval

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/report"
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
// plot is a figure the page puts in after rendering: the page takes no raw HTML from the
// Markdown (report.Page).
func HTML(r *Report) (string, error) {
	figs := report.NewFigures()
	return report.Page("Dixit protocol evaluation", Markdown(r, figs.Add(SVG(r))), figs)
}
