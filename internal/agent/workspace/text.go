package workspace

import "fmt"

// Text returns a text file's whole content for the text protocol, which patches files.
// The path is confined as the tools confine it; what is wrong (a path outside the
// workspace, a missing file, a directory, a binary file, a file larger than read_file
// shows) is an error in words for the model.
func (w *Workspace) Text(path string) (string, error) {
	rel, err := cleanPath(path, false)
	if err != nil {
		return "", err
	}
	data, size, err := w.readFile(rel)
	switch {
	case err != nil:
		return "", err
	case int64(len(data)) < size:
		return "", fmt.Errorf("%s is longer than %d bytes; write it whole instead", rel, w.opts.MaxRead)
	case binary(data, false):
		return "", fmt.Errorf("%s is a binary file; it cannot be patched", rel)
	}
	return string(data), nil
}
