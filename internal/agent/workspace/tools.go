package workspace

import (
	"encoding/json"
	"fmt"

	"github.com/dixit-bot/dixit/internal/llm"
)

// Tool names.
const (
	toolList   = "list_files"
	toolRead   = "read_file"
	toolWrite  = "write_file"
	toolDelete = "delete_file"
	toolRun    = "run_command"
)

// Tools describes the tools this workspace offers, in a stable order. The wording is
// plain: it talks about files and commands, nothing else.
func (w *Workspace) Tools() []llm.Tool {
	tools := []llm.Tool{
		{Name: toolList, Parameters: schema(map[string]string{
			"path":      `{"type": "string", "description": "Directory (or file) relative to the workspace root. Default: \".\" (the root)."}`,
			"recursive": `{"type": "boolean", "description": "List everything below path, not only its direct entries. Default: false."}`,
		}), Description: fmt.Sprintf("List files and directories in the workspace. Paths are relative to the workspace root; "+
			"directories end with \"/\", files show their size. At most %d entries are listed.", w.opts.MaxFiles)},
		{Name: toolRead, Parameters: schema(map[string]string{
			"path": `{"type": "string", "description": "File path relative to the workspace root, like \"src/main.go\"."}`,
		}, "path"), Description: fmt.Sprintf("Read a text file from the workspace. Files longer than %d bytes are cut, "+
			"with a note saying so.", w.opts.MaxRead)},
	}
	if w.opts.ReadOnly {
		return tools
	}
	tools = append(tools,
		llm.Tool{Name: toolWrite, Parameters: schema(map[string]string{
			"path":    `{"type": "string", "description": "File path relative to the workspace root, like \"src/main.go\"."}`,
			"content": `{"type": "string", "description": "The complete new content of the file."}`,
		}, "path", "content"), Description: fmt.Sprintf("Create a file, or replace the whole content of an existing one. "+
			"Missing parent directories are created. At most %d bytes.", w.opts.MaxWrite)},
		llm.Tool{Name: toolDelete, Parameters: schema(map[string]string{
			"path": `{"type": "string", "description": "Path relative to the workspace root."}`,
		}, "path"), Description: "Delete a file, a symbolic link or an empty directory from the workspace."},
	)
	if w.opts.Runner != nil {
		tools = append(tools, llm.Tool{Name: toolRun, Parameters: schema(map[string]string{
			"command": `{"type": "string", "description": "The command line, run by /bin/sh -c."}`,
		}, "command"), Description: fmt.Sprintf("Run a shell command with the workspace root as working directory and "+
			"return its exit code and the last part of its output (stdout and stderr combined). Files it writes stay in "+
			"the workspace. There is no network access and no input; a command is stopped after %s.", w.opts.CommandTimeout)})
	}
	return tools
}

// names lists the offered tools.
func (w *Workspace) names() []string {
	var out []string
	for _, t := range w.Tools() {
		out = append(out, t.Name)
	}
	return out
}

// offers reports whether name is one of this workspace's tools.
func (w *Workspace) offers(name string) bool {
	switch name {
	case toolList, toolRead:
		return true
	case toolWrite, toolDelete:
		return !w.opts.ReadOnly
	case toolRun:
		return !w.opts.ReadOnly && w.opts.Runner != nil
	}
	return false
}

// schema builds a JSON Schema object from property schemas, closed to other properties.
func schema(props map[string]string, required ...string) json.RawMessage {
	p := make(map[string]json.RawMessage, len(props))
	for k, v := range props {
		p[k] = json.RawMessage(v)
	}
	if required == nil {
		required = []string{}
	}
	b, err := json.Marshal(map[string]any{
		"type": "object", "properties": p, "required": required, "additionalProperties": false,
	})
	if err != nil {
		panic(fmt.Sprintf("workspace: tool schema: %v", err)) // the literals above are constant
	}
	return b
}
