package workspace

import (
	"os"
	"syscall"
)

// ownerUID is the uid owning a file.
func ownerUID(fi os.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return ^uint32(0)
}
