package sim_test

// Some of the simulator's tests (workload_test.go) run the real naive
// algorithm.
import _ "leaselab/naive"
