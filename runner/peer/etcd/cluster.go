//go:build etcd

package etcd

import (
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// cluster is an embedded etcd cluster on loopback, each member with its
// own data directory under one temporary directory (fsync on).
type cluster struct {
	dir     string
	members []*embed.Etcd
	clients []string // host:port of each member's client listener
}

// freePorts returns n loopback ports that were free a moment ago.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// startCluster starts n members and waits until they serve.
func startCluster(parent string, n int) (*cluster, error) {
	dir, err := os.MkdirTemp(parent, "leaselab-etcd-")
	if err != nil {
		return nil, err
	}
	c := &cluster{dir: dir}
	ports, err := freePorts(2 * n)
	if err != nil {
		c.close()
		return nil, err
	}
	u := func(port int) url.URL { return url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", port)} }
	var initial []string
	for i := range n {
		p := u(ports[2*i])
		initial = append(initial, fmt.Sprintf("m%d=%s", i, p.String()))
	}
	cfgs := make([]*embed.Config, n)
	for i := range n {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		p, cl := u(ports[2*i]), u(ports[2*i+1])
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{p}, []url.URL{p}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{cl}, []url.URL{cl}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "leaselab"
		cfg.ClusterState = embed.ClusterStateFlagNew
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfgs[i] = cfg
		c.clients = append(c.clients, cl.Host)
	}
	// Members of a new cluster wait for each other: start them together.
	type started struct {
		i   int
		e   *embed.Etcd
		err error
	}
	ch := make(chan started, n)
	for i, cfg := range cfgs {
		go func() {
			e, err := embed.StartEtcd(cfg)
			ch <- started{i, e, err}
		}()
	}
	c.members = make([]*embed.Etcd, n)
	var firstErr error
	for range n {
		s := <-ch
		c.members[s.i] = s.e
		if s.err != nil && firstErr == nil {
			firstErr = fmt.Errorf("etcd peer: start member %d: %w", s.i, s.err)
		}
	}
	if firstErr != nil {
		c.close()
		return nil, firstErr
	}
	timeout := time.After(60 * time.Second)
	for i, e := range c.members {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			c.close()
			return nil, fmt.Errorf("etcd peer: member %d: %w", i, err)
		case <-timeout:
			c.close()
			return nil, fmt.Errorf("etcd peer: the embedded cluster was not ready within 60 s")
		}
	}
	return c, nil
}

// close stops every member and removes the data directories.
func (c *cluster) close() {
	for _, e := range c.members {
		if e != nil {
			e.Close()
		}
	}
	os.RemoveAll(c.dir)
}
