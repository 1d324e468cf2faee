//go:build etcd

package etcd

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"

	"leaselab/runner"
)

// Available reports whether this binary can run the etcd peer (built with
// -tags etcd).
func Available() bool { return true }

// Run runs c's workload against etcd and measures it with leaselab's
// meters. With no Endpoints it starts (and afterwards removes) an embedded
// cluster; its start-up is not part of any meter.
func Run(ctx context.Context, c Config) (runner.Result, error) {
	if err := c.Validate(); err != nil {
		return runner.Result{}, err
	}
	endpoints := c.Endpoints
	if len(endpoints) == 0 {
		cl, err := startCluster(c.Dir, c.Members)
		if err != nil {
			return runner.Result{}, err
		}
		defer cl.close()
		endpoints = cl.clients
	}
	r := &run{cfg: c, endpoints: endpoints,
		prefix: fmt.Sprintf("%s/%d-%d/", c.Prefix, time.Now().UnixNano(), c.Seed)}
	var (
		res runner.Result
		err error
	)
	switch c.Workload {
	case "batch":
		res, err = r.batch(ctx)
	case "single":
		res, err = r.single(ctx)
	case "contention":
		res, err = r.contention(ctx)
	case "failover":
		res, err = r.failover(ctx)
	}
	if err != nil {
		return runner.Result{}, err
	}
	return res, nil
}

type run struct {
	cfg       Config
	endpoints []string
	prefix    string
}

func (r *run) key(res int) string { return r.prefix + strconv.Itoa(res) }

// client is one leaselab client: its own connection and session.
type client struct {
	cli  *clientv3.Client
	sess *concurrency.Session
}

func (r *run) connect(ctx context.Context, opts ...concurrency.SessionOption) (*client, error) {
	cli, err := clientv3.New(clientv3.Config{
		Endpoints: r.endpoints, DialTimeout: 10 * time.Second, Context: ctx, Logger: zap.NewNop(),
	})
	if err != nil {
		return nil, fmt.Errorf("etcd peer: connect to %v: %w", r.endpoints, err)
	}
	opts = append([]concurrency.SessionOption{concurrency.WithTTL(r.cfg.TTL), concurrency.WithContext(ctx)}, opts...)
	sess, err := concurrency.NewSession(cli, opts...)
	if err != nil {
		cli.Close()
		return nil, fmt.Errorf("etcd peer: session on %v: %w", r.endpoints, err)
	}
	return &client{cli: cli, sess: sess}, nil
}

// close ends the session (revoking its lease, which deletes its keys) and
// the connection.
func (c *client) close() {
	c.sess.Close()
	c.cli.Close()
}

// connectAll connects n clients.
func (r *run) connectAll(ctx context.Context, n int) ([]*client, error) {
	cs := make([]*client, 0, n)
	for range n {
		c, err := r.connect(ctx)
		if err != nil {
			closeAll(cs)
			return nil, err
		}
		cs = append(cs, c)
	}
	return cs, nil
}

func closeAll(cs []*client) {
	for _, c := range cs {
		c.close()
	}
}

// watchSession ends every hold of owner if its session ends before the
// run does (keep-alives lost: etcd may hand its locks to others).
func watchSession(o *observer, owner int, s *concurrency.Session, stop <-chan struct{}) {
	go func() {
		select {
		case <-s.Done():
			o.expired(owner)
		case <-stop:
		}
	}()
}

func canceled(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// oneClient connects one client whose session the observer watches, and
// bounds the run by the configured duration; end releases it all.
func (r *run) oneClient(ctx context.Context) (cl *client, o *observer, runCtx context.Context, end func(), err error) {
	cl, err = r.connect(ctx)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	stop := make(chan struct{})
	runCtx, cancel := context.WithTimeout(ctx, r.cfg.Duration)
	o = newObserver()
	watchSession(o, 0, cl.sess, stop)
	return cl, o, runCtx, func() { cancel(); close(stop); cl.close() }, nil
}

func (r *run) batch(ctx context.Context) (runner.Result, error) {
	c := r.cfg
	cl, o, runCtx, release, err := r.oneClient(ctx)
	if err != nil {
		return runner.Result{}, err
	}
	defer release()
	t0 := o.now() // every request is made at t0; the window delays some
	var next, done atomic.Int64
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for range min(c.Window, c.Leases) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= c.Leases {
					return
				}
				o.request(0, i, t0)
				m := concurrency.NewMutex(cl.sess, r.key(i))
				if err := m.Lock(runCtx); err != nil {
					o.fail(0, i)
					if !canceled(err) {
						errOnce.Do(func() { firstErr = err })
					}
					continue
				}
				o.acquired(0, i)
				done.Add(1)
			}
		})
	}
	progress(c.Progress, &wg, func() float64 { return float64(done.Load()) / float64(c.Leases) })
	end := o.now()
	if firstErr != nil && done.Load() == 0 {
		return runner.Result{}, fmt.Errorf("etcd peer: every lock failed: %w", firstErr)
	}
	return o.result(c, end), nil
}

// progress waits for wg, telling report the fraction done now and then.
func progress(report func(float64), wg *sync.WaitGroup, frac func() float64) {
	if report == nil {
		wg.Wait()
		return
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-finished:
			report(1)
			return
		case <-tick.C:
			report(frac())
		}
	}
}

func (r *run) single(ctx context.Context) (runner.Result, error) {
	c := r.cfg
	cl, o, runCtx, release, err := r.oneClient(ctx)
	if err != nil {
		return runner.Result{}, err
	}
	defer release()
	for i := range c.Reps {
		o.request(0, i, o.now())
		m := concurrency.NewMutex(cl.sess, r.key(i))
		if err := m.Lock(runCtx); err != nil {
			if !canceled(err) {
				return runner.Result{}, fmt.Errorf("etcd peer: lock: %w", err)
			}
			// Unfinished at the end of the run: this one, and those the
			// run's end left unmade.
			o.fail(0, i)
			for j := i + 1; j < c.Reps; j++ {
				o.request(0, j, o.now())
				o.fail(0, j)
			}
			break
		}
		o.acquired(0, i)
		o.released(0, i)
		if err := m.Unlock(ctx); err != nil {
			return runner.Result{}, fmt.Errorf("etcd peer: unlock: %w", err)
		}
	}
	return o.result(c, o.now()), nil
}

// sleep waits d or until ctx ends (false).
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func (r *run) contention(ctx context.Context) (runner.Result, error) {
	c := r.cfg
	cs, err := r.connectAll(ctx, c.Proposers)
	if err != nil {
		return runner.Result{}, err
	}
	defer closeAll(cs)
	stop := make(chan struct{})
	defer close(stop)
	runCtx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	o := newObserver()
	var firstErr error
	var errOnce sync.Once
	var wg sync.WaitGroup
	for p, cl := range cs {
		watchSession(o, p, cl.sess, stop)
		rng := rand.New(rand.NewPCG(c.Seed, uint64(p)))
		wg.Go(func() {
			for runCtx.Err() == nil {
				res := 0
				if c.Resources > 1 {
					res = rng.IntN(c.Resources)
				}
				o.request(p, res, o.now())
				m := concurrency.NewMutex(cl.sess, r.key(res))
				if err := m.Lock(runCtx); err != nil {
					if canceled(err) && runCtx.Err() != nil {
						return // the run is over: a waiting request is not a failure
					}
					o.fail(p, res)
					errOnce.Do(func() { firstErr = err })
					continue
				}
				o.acquired(p, res)
				if !sleep(runCtx, c.Hold) {
					return // still holding at the end: the hold ends with the run
				}
				o.released(p, res)
				if err := m.Unlock(ctx); err != nil {
					errOnce.Do(func() { firstErr = err })
					return
				}
				var pause time.Duration
				if c.Pause > 0 {
					pause = time.Duration(rng.Int64N(int64(c.Pause) + 1))
				}
				sleep(runCtx, pause)
			}
		})
	}
	<-runCtx.Done()
	end := o.now()
	wg.Wait()
	if acq, failed := o.counts(); firstErr != nil && failed > 0 && acq == 0 {
		return runner.Result{}, fmt.Errorf("etcd peer: no client got a lock: %w", firstErr)
	}
	return o.result(c, end), nil
}

func (r *run) failover(ctx context.Context) (runner.Result, error) {
	c := r.cfg
	runCtx, cancel := context.WithTimeout(ctx, c.Duration)
	defer cancel()
	// The holder's own lease, so that its keep-alives can be watched: it
	// crashes right after one, with a whole TTL still to run.
	holderCli, err := clientv3.New(clientv3.Config{
		Endpoints: r.endpoints, DialTimeout: 10 * time.Second, Context: ctx, Logger: zap.NewNop(),
	})
	if err != nil {
		return runner.Result{}, fmt.Errorf("etcd peer: connect to %v: %w", r.endpoints, err)
	}
	defer holderCli.Close() // a second Close is harmless
	grant, err := holderCli.Grant(ctx, int64(c.TTL))
	if err != nil {
		return runner.Result{}, fmt.Errorf("etcd peer: grant: %w", err)
	}
	kaCtx, kaCancel := context.WithCancel(ctx)
	defer kaCancel()
	kas, err := holderCli.KeepAlive(kaCtx, grant.ID)
	if err != nil {
		return runner.Result{}, fmt.Errorf("etcd peer: keep-alive: %w", err)
	}
	holderSess, err := concurrency.NewSession(holderCli, concurrency.WithLease(grant.ID), concurrency.WithContext(ctx))
	if err != nil {
		return runner.Result{}, fmt.Errorf("etcd peer: session: %w", err)
	}
	others, err := r.connectAll(ctx, c.Proposers-1)
	if err != nil {
		return runner.Result{}, err
	}
	defer closeAll(others)
	stop := make(chan struct{})
	defer close(stop)

	o := newObserver()
	o.request(0, 0, o.now())
	if err := concurrency.NewMutex(holderSess, r.key(0)).Lock(runCtx); err != nil {
		return runner.Result{}, fmt.Errorf("etcd peer: the holder's lock: %w", err)
	}
	o.acquired(0, 0)
	if err := crashAfter(runCtx, o, kas, int64(c.Duration/4)); err != nil {
		return runner.Result{}, err
	}
	holderCli.Close() // no revoke: etcd must let the lease expire
	kaCancel()

	won := make(chan struct{}, len(others))
	var wg sync.WaitGroup
	for i, cl := range others {
		p := i + 1
		watchSession(o, p, cl.sess, stop)
		wg.Go(func() {
			o.request(p, 0, o.now())
			if err := concurrency.NewMutex(cl.sess, r.key(0)).Lock(runCtx); err != nil {
				if !canceled(err) || runCtx.Err() == nil {
					o.fail(p, 0)
				}
				return
			}
			o.acquired(p, 0)
			won <- struct{}{}
		})
	}
	select {
	case <-won:
	case <-runCtx.Done():
	}
	end := o.now()
	cancel()
	wg.Wait()
	return o.result(c, end), nil
}

// crashAfter crashes the holder (client 0) at its first keep-alive answer
// at or after at (ns since the start).
func crashAfter(ctx context.Context, o *observer, kas <-chan *clientv3.LeaseKeepAliveResponse, at int64) error {
	for {
		select {
		case _, ok := <-kas:
			if !ok {
				return fmt.Errorf("etcd peer: the holder's keep-alives stopped before its crash")
			}
			if o.now() >= at {
				o.crashed(0)
				return nil
			}
		case <-ctx.Done():
			return fmt.Errorf("etcd peer: failover: %w", ctx.Err())
		}
	}
}
