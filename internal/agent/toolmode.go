package agent

import (
	"errors"
	"strings"

	"github.com/dixit-bot/dixit/internal/llm"
)

// toolsRefusal are the words with which servers refuse a request that offers tools to a
// model or a server set up without tool calling:
//   - Ollama, 400: "registry.ollama.ai/library/gemma3:4b does not support tools"
//   - vLLM, 400: "\"auto\" tool choice requires --enable-auto-tool-choice and
//     --tool-call-parser to be set"
//   - llama.cpp's server, 500: "tools param requires --jinja flag"
//   - others: "tools is not supported", "does not support function calling"
var toolsRefusal = []string{
	"does not support tools", "tools is not supported", "tools are not supported",
	"tool choice requires --enable-auto-tool-choice", "tools param requires --jinja",
	"does not support function calling", "function calling is not supported",
}

// toolsUnsupported reports an endpoint's refusal of a request because it offered tools.
// Servers say so only in words, so the words are what is matched.
func toolsUnsupported(err error) bool {
	var se *llm.StatusError
	if !errors.As(err, &se) || (se.StatusCode != 0 && se.StatusCode < 400) {
		return false
	}
	msg := strings.ToLower(se.Message)
	for _, s := range toolsRefusal {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}
