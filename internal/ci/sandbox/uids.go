package sandbox

import (
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// uidSpan is how far above UIDBase lanes may be claimed.
const uidSpan = 4096

// claimUIDs takes n unused lane uids above base, holding an flock per uid, so that two
// judges on one host (two processes, or two Locals) never share a lane: a shared uid
// would share RLIMIT_NPROC and, without bubblewrap, the kill(-1) sweep. The kernel
// drops the locks if the process dies. base itself is the lanes' shared group, which
// owns the build cache; a lane's tests run with its uid as their group (see command),
// so a uid that names a real group is skipped like one that names a real account.
func claimUIDs(dir string, base, n int) ([]int, []*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, nil, fmt.Errorf("uid locks: %w", err)
	}
	var uids []int
	var locks []*os.File
	for uid := base + 1; uid < base+uidSpan && len(uids) < n; uid++ {
		if _, err := user.LookupId(strconv.Itoa(uid)); err == nil {
			continue // a real account
		}
		if _, err := user.LookupGroupId(strconv.Itoa(uid)); err == nil {
			continue // a real group
		}
		f, err := TryLock(filepath.Join(dir, strconv.Itoa(uid)+".lock"))
		if err != nil {
			releaseUIDs(locks)
			return nil, nil, fmt.Errorf("uid lock %d: %w", uid, err)
		}
		if f == nil {
			continue // another judge's lane
		}
		uids = append(uids, uid)
		locks = append(locks, f)
	}
	if len(uids) < n {
		releaseUIDs(locks)
		return nil, nil, fmt.Errorf("only %d of %d lane uids free in [%d, %d)", len(uids), n, base+1, base+uidSpan)
	}
	return uids, locks, nil
}

func releaseUIDs(locks []*os.File) {
	for _, f := range locks {
		f.Close()
	}
}
