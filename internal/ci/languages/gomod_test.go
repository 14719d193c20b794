package languages

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestGoReplacedNamesTheGoModOfEachDirectoryOfTheTree(t *testing.T) {
	src := t.TempDir()
	gomod := `module example.com/hello

go 1.22

replace example.com/greet => ./greet // ours
replace example.com/pinned v1.2.0 => "./third_party/pinned"
replace example.com/fork => github.com/someone/fork v1.0.0
replace example.com/outside => ../outside
replace example.com/abs => /etc
// replace example.com/commented => ./commented

replace (
	example.com/a => ./mods/a/
	example.com/b v0.1.0 => ./mods/../mods/b
	example.com/c => example.com/c2 v0.2.0
)
`
	require.NoError(t, os.WriteFile(filepath.Join(src, "go.mod"), []byte(gomod), 0o644))
	assert.Equal(t, []string{"greet/go.mod", "third_party/pinned/go.mod", "mods/a/go.mod", "mods/b/go.mod"}, goReplaced(src),
		"module replacements, directories outside the tree and comments name nothing")
	assert.Nil(t, goReplaced(t.TempDir()), "no go.mod")
}
