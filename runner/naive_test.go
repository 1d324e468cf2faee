package runner

// Some of the runner's tests (workload_test.go, spec_datagram_test.go) run
// the real naive algorithm.
import _ "leaselab/naive"
