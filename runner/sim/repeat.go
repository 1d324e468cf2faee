package sim

import (
	"fmt"
	"strconv"
	"strings"
)

// maxRepeat bounds a repeat line, so that a typo cannot run for hours.
const maxRepeat = 100000

// repeat runs "repeat N CMD [ARGS] [; CMD [ARGS]]...": the commands, in
// order, N times over. "repeat 300 deliver all ; advance 10ms" runs the
// protocol for 3 s, every message delivered as soon as it is sent, without
// one line per step.
func (rp *replayer) repeat(args []string) error {
	const usage = "usage: repeat N CMD [ARGS] [; CMD [ARGS]]..."
	if len(args) < 2 {
		return fmt.Errorf(usage)
	}
	n, err := strconv.Atoi(args[0])
	if err != nil || n < 1 || n > maxRepeat {
		return fmt.Errorf("repeat: want a count from 1 to %d, got %q", maxRepeat, args[0])
	}
	var cmds [][]string
	for _, part := range strings.Split(strings.Join(args[1:], " "), ";") {
		f := strings.Fields(part)
		if len(f) == 0 {
			return fmt.Errorf("repeat: empty command (%s)", usage)
		}
		if f[0] == "repeat" {
			return fmt.Errorf("repeat: repeat lines do not nest")
		}
		cmds = append(cmds, f)
	}
	for i := 0; i < n; i++ {
		for _, c := range cmds {
			if err := rp.exec(c); err != nil {
				return err
			}
			if rp.s != nil && rp.s.err != nil {
				return rp.s.err
			}
		}
	}
	return nil
}
