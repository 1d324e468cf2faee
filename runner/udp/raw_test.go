package udp

import (
	"testing"
	"time"
)

func TestRawRTT(t *testing.T) {
	rtts, err := RawRTT(500)
	if err != nil {
		t.Fatal(err)
	}
	if len(rtts) != 500 || rtts[0] <= 0 || rtts[0] > rtts[len(rtts)-1] {
		t.Fatalf("%d round trips, first %v last %v", len(rtts), rtts[0], rtts[len(rtts)-1])
	}
	t.Logf("raw loopback rtt median %v", rtts[len(rtts)/2])
}

func TestRawDatagrams(t *testing.T) {
	for _, tc := range []struct {
		name string
		rate func(int, time.Duration) (RawRate, error)
	}{{"one a call", RawDatagrams}, {"batched", RawDatagramsBatched}} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := tc.rate(0, time.Millisecond); err == nil {
				t.Fatal("size 0 accepted")
			}
			r, err := tc.rate(64, 200*time.Millisecond)
			if err != nil {
				t.Fatal(err)
			}
			if r.RecvPerSec <= 0 || r.SentPerSec < r.RecvPerSec {
				t.Fatalf("implausible rates %+v", r)
			}
			t.Logf("raw 64-byte datagrams: %+v", r)
		})
	}
}
