//go:build linux || darwin || freebsd || dragonfly

package udp

import "syscall"

// freeBytes is the space in dir's filesystem that an unprivileged writer
// may use (df's "Avail").
func freeBytes(dir string) (int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	// The field types differ between systems; the product fits in int64
	// for any real filesystem.
	return int64(st.Bavail) * int64(st.Bsize), nil
}
