// Package sweep runs a grid of runs (`leaselab sweep`): every combination
// of some parameters' values (a cell: algorithms × proposers × loss, say)
// with K seeds each, and summarises every meter per cell as a mean with
// its 95% confidence interval (Student's t, from runner/experiments'
// statistics), as a table, CSV, JSON and a chart.
//
// Parameters are the runner's parameter table (runner.Params): an axis
// is a parameter name and its values spelled as on the command line, so
// `--proposers 2,4,8` on the command line is Axis{"proposers", {"2", "4",
// "8"}} here, and every parameter means what it means to `leaselab run`.
// Grid.Cells enumerates the cells (the first axis varying slowest) and
// validates each one's spec before anything runs; Grid.Jobs lists the
// runs in the order they start. Run runs them on a pool of workers (runs
// over UDP alone, since they measure real time), every result in its own
// slot, so the summary does not depend on the scheduling; a closed
// Options.Stop starts nothing more and cuts the runs in flight short,
// and the result then summarises the runs that completed.
//
// A cell's run with seed S is exactly `leaselab run` with the cell's
// values and --seed S: the JSON keeps each run's trace hash, so any
// number in a sweep can be traced to a single run.
package sweep
