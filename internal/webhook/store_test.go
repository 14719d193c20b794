package webhook

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStoreRecover(t *testing.T) {
	dir := t.TempDir()
	st, err := openStore(dir)
	require.NoError(t, err)
	rec := func(id string) record {
		return record{ID: id, Event: "issues", Payload: []byte(`{}`), ReceivedAt: time.Now()}
	}
	require.NoError(t, st.put(rec("pending")))
	require.NoError(t, st.put(rec("finished")))
	require.NoError(t, writeAtomic(filepath.Join(dir, doneDir), "finished.json", rec("finished"))) // crash before the remove
	require.NoError(t, writeAtomic(filepath.Join(dir, failedDir), "parked.json", rec("parked")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, tmpPrefix+"123"), []byte("half"), 0o600))

	seen, pending, err := st.recover()
	require.NoError(t, err)
	assert.Equal(t, map[string]bool{"pending": true, "finished": true, "parked": true}, seen)
	assert.Equal(t, []string{"pending"}, pending)
	assert.NoFileExists(t, filepath.Join(dir, "finished.json"))
	assert.NoFileExists(t, filepath.Join(dir, tmpPrefix+"123"))
}
