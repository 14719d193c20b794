package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/dixit-bot/dixit/internal/replay"
)

// Write puts replay.md, replay.json and replay.svg into dir and returns their paths.
func Write(dir string, rep *replay.Report) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("replay output: %w", err)
	}
	var md, svg bytes.Buffer
	if err := Markdown(&md, rep); err != nil {
		return nil, fmt.Errorf("replay.md: %w", err)
	}
	if err := SVG(&svg, rep); err != nil {
		return nil, fmt.Errorf("replay.svg: %w", err)
	}
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("replay.json: %w", err)
	}
	files := []struct {
		name string
		data []byte
	}{{"replay.md", md.Bytes()}, {"replay.json", append(js, '\n')}, {"replay.svg", svg.Bytes()}}
	var paths []string
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, f.data, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", f.name, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}
