package postgres_test

import (
	"net"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/postgres"
)

// TestOpen_SilentServer: a server that accepts connections and never
// answers fails Open within the connect timeout, with a message that says
// what to do and no driver text.
func TestOpen_SilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, silent
		}
	}()
	db := postgres.NewDB("postgres://cairn@" + ln.Addr().String() + "/cairn?sslmode=disable")
	db.ConnectTimeout = 300 * time.Millisecond
	start := time.Now()
	err = db.Open()
	took := time.Since(start)
	if err == nil {
		db.Close()
		t.Fatal("Open succeeded against a silent server")
	}
	if took > 3*time.Second {
		t.Fatalf("Open took %v against a silent server", took)
	}
	msg := cairn.ErrorMessage(err)
	if cairn.ErrorCode(err) == cairn.EINTERNAL && msg == "Internal error." || strings.Contains(msg, "SQLSTATE") || !strings.Contains(msg, "PostgreSQL") {
		t.Fatalf("message %q (%v)", msg, err)
	}
	t.Logf("%v: %s", took, msg)
}
