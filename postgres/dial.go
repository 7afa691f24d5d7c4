package postgres

import (
	"net"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TCP settings of every connection to the server. Keepalive probes find a
// peer that vanished while a connection sat idle (a session lock held
// through an import, a pooled connection); the user timeout ends a
// connection whose data the peer's host stopped acknowledging (the host
// or the network is gone), where the kernel would otherwise retransmit
// for about 15 minutes. Neither notices a server that is stopped on a
// live host (its kernel still acknowledges): the statement deadline
// (deadline.go) ends those calls.
const (
	keepAliveIdle     = 15 * time.Second
	keepAliveInterval = 5 * time.Second
	keepAliveCount    = 3
	userTimeout       = 30 * time.Second
)

// dialer returns the function pgx connects with: timeout bounds the
// connection to one address; keepalives and the user timeout are set.
func dialer(timeout time.Duration) pgconn.DialFunc {
	d := &net.Dialer{
		Timeout: timeout,
		KeepAliveConfig: net.KeepAliveConfig{
			Enable: true, Idle: keepAliveIdle, Interval: keepAliveInterval, Count: keepAliveCount,
		},
		Control: setUserTimeout,
	}
	return d.DialContext
}
