package gitstate

import (
	"regexp"
	"strings"
)

// Names git treats as .git or .gitmodules, once folded (see fold): in any case, with
// trailing dots and spaces or an NTFS stream suffix, and as Windows short names.
var (
	dotGit     = regexp.MustCompile(`^(\.git|git~1)[. ]*([:\\/].*)?$`)
	gitModules = regexp.MustCompile(`^(\.gitmodules|gitmod~[1-4]|g(i(7(e(ba?)?)?)?)?~[1-9][0-9]*)[. ]*([:\\/].*)?$`)
)

// ReservedName reports whether git takes a path element for ".git": in any case, with
// trailing dots or spaces (".git.", ".GIT "), with an NTFS stream (".git::$INDEX_ALLOCATION"),
// as the short name "git~1", or with code points macOS ignores (".g\u200cit"). Git's fsck
// reports a tree holding one, git refuses to check it out, and GitHub refuses to receive
// it; where a checkout accepts it, it would plant a repository's control files.
func ReservedName(name string) bool { return dotGit.MatchString(fold(name)) }

// ModulesName reports whether git takes a path element for ".gitmodules", in the same
// spellings. Git checks such a file's content on fsck, and so GitHub on every push: a
// bad one makes the branch that holds it unpushable.
func ModulesName(name string) bool { return gitModules.MatchString(fold(name)) }

// fold lowercases ASCII letters and removes the code points HFS+ ignores in names.
func fold(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
			return -1
		}
		return r
	}, name)
}
