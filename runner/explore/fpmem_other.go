//go:build !unix

package explore

import "unsafe"

// fpAlloc returns n bytes of zeroed memory (from the heap: this system
// has no anonymous mappings here).
func fpAlloc(n int) []byte { return make([]byte, n) }

// fpFree leaves m to the collector.
func fpFree(m []byte) {}

// fpSlots views m as n fingerprints.
func fpSlots(m []byte, n int) []fp {
	return unsafe.Slice((*fp)(unsafe.Pointer(unsafe.SliceData(m))), n)
}
