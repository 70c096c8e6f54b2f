package study

import (
	"hash/fnv"

	"golang.org/x/sys/windows"
)

// diskOf returns the volume directory d is on (a hash of its mount path)
// and the bytes free on it for this user.
func diskOf(d string) (dev uint64, free int64, err error) {
	p, err := windows.UTF16PtrFromString(d)
	if err != nil {
		return 0, 0, err
	}
	var avail uint64
	if err := windows.GetDiskFreeSpaceEx(p, &avail, nil, nil); err != nil {
		return 0, 0, err
	}
	var root [windows.MAX_PATH + 1]uint16
	if err := windows.GetVolumePathName(p, &root[0], uint32(len(root))); err != nil {
		return 0, 0, err
	}
	h := fnv.New64a()
	h.Write([]byte(windows.UTF16ToString(root[:])))
	return h.Sum64(), int64(avail), nil
}

// syncDisks does nothing here: there is no page cache to drop
// (dropCaches says so).
func syncDisks() {}
