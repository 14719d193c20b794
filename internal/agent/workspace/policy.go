package workspace

import (
	"strings"

	"github.com/dixit-bot/dixit/internal/gitstate"
)

// Protected says why an agent may not add, change or delete a path of its working copy
// ("" when it may). The tools refuse such writes, and a commit of the working copy
// keeps these paths as they were, whatever a command did to them:
//   - .github/workflows/: a branch pushed to GitHub runs the workflows it holds, with the
//     repository's secrets, before anyone has read them;
//   - .gitmodules (any spelling git reads as it): git checks its content on every push,
//     and a bad one would make the branch unpushable.
func Protected(rel string) string {
	parts := strings.Split(rel, "/")
	if len(parts) >= 2 && strings.EqualFold(parts[0], ".github") && strings.EqualFold(parts[1], "workflows") {
		return "the repository's CI workflows (.github/workflows/) stay as they are"
	}
	for _, part := range parts {
		if gitstate.ModulesName(part) {
			return "the submodule list (.gitmodules) stays as it is"
		}
	}
	return ""
}
