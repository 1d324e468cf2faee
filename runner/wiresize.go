package runner

// WireSize is what one message costs on the network, in bytes: its size
// in the UDP codec's fixed layout (runner/udp/wire, whose tests check its encoding
// against it). The meters count bytes with it in every environment, and
// the simulator's bandwidth model delays messages by it, so simulated and
// real byte counts agree.
const WireSize = 64
