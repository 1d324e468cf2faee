//go:build unix

package explore

import (
	"syscall"
	"unsafe"
)

// fpAlloc returns n bytes of zeroed memory mapped outside the Go heap, or
// from the heap if the system refuses the mapping.
func fpAlloc(n int) []byte {
	m, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return make([]byte, n)
	}
	return m
}

// fpFree gives back what fpAlloc returned (a heap slice is left to the
// collector).
func fpFree(m []byte) {
	if len(m) > 0 {
		_ = syscall.Munmap(m) // EINVAL for a heap slice: the collector takes it
	}
}

// fpSlots views m as n fingerprints.
func fpSlots(m []byte, n int) []fp {
	return unsafe.Slice((*fp)(unsafe.Pointer(unsafe.SliceData(m))), n)
}
