package algorithms

import (
	"fmt"
	"strings"
)

// Message kinds are a registry, not a closed list, so that an algorithm
// outside this package can have messages of its own without editing it.
// A kind's number is what travels on the wire, so every process of a
// cluster must agree on it: numbers are chosen by the algorithm, never
// handed out in init order (which depends on what a binary imports).
//
// leaselab's own kinds are 1..13 (message.go). Kinds from
// FirstExtensionKind up are left to other algorithms; an algorithm picks
// a free block and RegisterKinds refuses one that overlaps a block
// already taken, naming its owner. Kind 0 (KindInvalid) is never valid.
//
// The registry is written only by RegisterKinds from package init
// functions, before any goroutine runs, and read without locks after.

// FirstExtensionKind is the lowest kind number left to algorithms other
// than leaselab's own (which may still take kinds below it).
const FirstExtensionKind Kind = 64

type kindInfo struct {
	name  string // "" for a kind nobody registered
	owner string // the algorithm (or "leaselab") that registered it
}

// kindTable is indexed by kind number: a lookup is one load, which
// matters because the wire codec checks every message it encodes or
// decodes.
var kindTable = builtinKinds()

func builtinKinds() *[256]kindInfo {
	var t [256]kindInfo
	for k, name := range builtinKindNames {
		if k == int(KindInvalid) {
			continue
		}
		t[k] = kindInfo{name: name, owner: "leaselab"}
	}
	return &t
}

// RegisterKinds registers the kinds first, first+1, ... for the
// algorithm owner, named names in that order, and returns them. Call it
// from an init function (a package-level var initialised with it is the
// usual way: var kinds = algorithms.RegisterKinds(...)).
//
// It panics, as Register does on a duplicate algorithm, when the block
// is empty, starts at KindInvalid, runs past kind 255, overlaps kinds
// already registered, or reuses a name (scenario files name kinds, so a
// name must identify one kind): these are programming errors that show
// the first time the binary starts.
func RegisterKinds(owner string, first Kind, names ...string) []Kind {
	if err := checkKinds(owner, first, names); err != nil {
		panic("algorithms: RegisterKinds: " + err.Error())
	}
	out := make([]Kind, len(names))
	for i, name := range names {
		k := first + Kind(i)
		kindTable[k] = kindInfo{name: name, owner: owner}
		out[i] = k
	}
	return out
}

func checkKinds(owner string, first Kind, names []string) error {
	switch {
	case owner == "":
		return fmt.Errorf("kinds need an owner (the algorithm's name)")
	case len(names) == 0:
		return fmt.Errorf("%s registers no kind", owner)
	case first == KindInvalid:
		return fmt.Errorf("%s: kind 0 is KindInvalid, start at 1 or above (%d and up are free for new algorithms)", owner, FirstExtensionKind)
	case int(first)+len(names)-1 > 255:
		return fmt.Errorf("%s: kinds %d..%d run past 255 (a kind is one byte)", owner, first, int(first)+len(names)-1)
	}
	seen := map[string]bool{}
	for i, name := range names {
		k := first + Kind(i)
		if name == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("%s: kind %d needs a name without blanks, got %q", owner, k, name)
		}
		if in := kindTable[k]; in.name != "" {
			return fmt.Errorf("%s: kind %d (%s) is taken by %s as %q", owner, k, name, in.owner, in.name)
		}
		if other, ok := KindByName(name); ok {
			return fmt.Errorf("%s: kind name %q is taken by %s (kind %d)", owner, name, other.Owner(), other)
		}
		if seen[name] {
			return fmt.Errorf("%s: kind name %q given twice", owner, name)
		}
		seen[name] = true
	}
	return nil
}

// KindByName finds a registered kind by its name.
func KindByName(name string) (Kind, bool) {
	for k := 1; k < len(kindTable); k++ {
		if kindTable[k].name != "" && kindTable[k].name == name {
			return Kind(k), true
		}
	}
	return KindInvalid, false
}

// Kinds lists the registered kinds in ascending order.
func Kinds() []Kind {
	var out []Kind
	for k := 1; k < len(kindTable); k++ {
		if kindTable[k].name != "" {
			out = append(out, Kind(k))
		}
	}
	return out
}

// Owner is the algorithm that registered k ("leaselab" for the built-in
// kinds, "" for an unregistered one).
func (k Kind) Owner() string { return kindTable[k].owner }

func (k Kind) String() string {
	if n := kindTable[k].name; n != "" {
		return n
	}
	if k == KindInvalid {
		return "invalid"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// Valid reports whether k is a registered kind (never KindInvalid).
func (k Kind) Valid() bool { return kindTable[k].name != "" }
