package udp

import "leaselab/algorithms"

// timers is one node's timer set: at most one live deadline per key, kept
// in a binary min-heap on local time. Replacing or cancelling a timer does
// not search the heap: the live table says which deadline is current and
// stale heap entries are skipped when they surface (lazy deletion). When
// stale entries outnumber live ones the heap is rebuilt, so memory stays
// proportional to the live timers even when every lease sets and cancels
// several timers (the batch workload does, for millions of resources).
type timers struct {
	live timerTable
	heap []timerEntry
}

type timerEntry struct {
	at  algorithms.Local
	key algorithms.TimerKey
}

func newTimers() *timers {
	return &timers{}
}

// set makes key fire at local time at, replacing any pending deadline.
func (t *timers) set(key algorithms.TimerKey, at algorithms.Local) {
	if old, ok := t.live.set(key, at); ok && old == at {
		return // already pending at this instant: nothing to push
	}
	t.push(timerEntry{at: at, key: key})
	if len(t.heap) > 2*t.live.len()+1024 {
		t.rebuild()
	}
}

// cancel forgets key.
func (t *timers) cancel(key algorithms.TimerKey) { t.live.del(key) }

// len is the number of live timers.
func (t *timers) len() int { return t.live.len() }

// next returns the earliest live deadline, dropping stale entries on top.
func (t *timers) next() (algorithms.Local, bool) {
	for len(t.heap) > 0 {
		e := t.heap[0]
		if at, ok := t.live.get(e.key); ok && at == e.at {
			return e.at, true
		}
		t.pop()
	}
	return 0, false
}

// due removes and returns one live timer whose deadline is at or before
// now, if any.
func (t *timers) due(now algorithms.Local) (algorithms.TimerKey, bool) {
	at, ok := t.next()
	if !ok || at > now {
		return algorithms.TimerKey{}, false
	}
	e := t.pop()
	t.live.del(e.key)
	return e.key, true
}

func (t *timers) rebuild() {
	t.heap = t.heap[:0]
	t.live.each(func(k algorithms.TimerKey, at algorithms.Local) {
		t.heap = append(t.heap, timerEntry{at: at, key: k})
	})
	for i := len(t.heap)/2 - 1; i >= 0; i-- {
		t.down(i)
	}
}

func (t *timers) push(e timerEntry) {
	t.heap = append(t.heap, e)
	i := len(t.heap) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !t.less(i, p) {
			break
		}
		t.heap[i], t.heap[p] = t.heap[p], t.heap[i]
		i = p
	}
}

func (t *timers) pop() timerEntry {
	h := t.heap
	e := h[0]
	last := len(h) - 1
	h[0] = h[last]
	t.heap = h[:last]
	if last > 0 {
		t.down(0)
	}
	return e
}

func (t *timers) down(i int) {
	h := t.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && t.less(r, l) {
			m = r
		}
		if !t.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// less orders by deadline, then by key so that timers due at the same
// instant fire in a fixed order.
func (t *timers) less(i, j int) bool {
	a, b := t.heap[i], t.heap[j]
	if a.at != b.at {
		return a.at < b.at
	}
	if a.key.Resource != b.key.Resource {
		return a.key.Resource < b.key.Resource
	}
	return a.key.Kind < b.key.Kind
}
