package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruptible lets a long command end cleanly on SIGINT or SIGTERM: the
// first signal closes stop (runs end early, campaigns and sweeps start
// nothing more, temporary directories are removed on the way out, and
// the command prints what it has so far); a second one exits at once
// with status 130. release stops listening; call it when the work is done.
func interruptible(c *ctx) (stop <-chan struct{}, release func()) {
	ch := make(chan struct{})
	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-sig:
			fmt.Fprintf(c.stderr, "\nleaselab %s: interrupted: finishing what is in flight and printing the partial result (interrupt again to quit at once)\n", c.name)
			close(ch)
		case <-quit:
			return
		}
		select {
		case <-sig:
			os.Exit(130)
		case <-quit:
		}
	}()
	var once sync.Once
	return ch, func() {
		once.Do(func() {
			signal.Stop(sig)
			close(quit)
			wg.Wait()
		})
	}
}

// interruptContext is interruptible for code that takes a context (the
// explorer): the first signal cancels the context, a second exits at once.
// release stops listening and cancels the context.
func interruptContext(c *ctx) (context.Context, func()) {
	stop, release := interruptible(c)
	sctx, cancel := context.WithCancel(context.Background())
	go func() {
		select {
		case <-stop:
			cancel()
		case <-sctx.Done():
		}
	}()
	return sctx, func() {
		cancel()
		release()
	}
}
