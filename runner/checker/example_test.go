package checker_test

import (
	"fmt"

	"leaselab/runner/checker"
)

// Three clients' holds on resource 1, in true time: client 2 started
// while client 1 still believed it held the lease.
func ExampleCheck() {
	vs, err := checker.Check([]checker.Interval{
		{Resource: 1, Holder: 1, Start: 0, End: 100},
		{Resource: 1, Holder: 2, Start: 80, End: 200},
		{Resource: 1, Holder: 3, Start: 200, End: 300}, // half open: no overlap with 2
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vs {
		fmt.Printf("resource %d: holders %d and %d from %d for %d ns\n", v.Resource, v.Owners[0], v.Owners[1], v.StartNS, v.OverlapNS)
	}
	// Output:
	// resource 1: holders 1 and 2 from 80 for 20 ns
}
