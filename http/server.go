package http

import (
	"bytes"
	"cmp"
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/http/ui"
)

// ShutdownTimeout is the time given for outstanding requests to finish
// before shutdown.
const ShutdownTimeout = 1 * time.Second

// CSRFHeader must be present on every request that changes the store. A
// page on another origin cannot add it without a CORS preflight, and this
// server answers none.
const CSRFHeader = "X-Cairn"

// TokenCookie holds the token in a browser, once the one-time login URL
// has been opened.
const TokenCookie = "cairn_token"

// Server is the viewer's HTTP server: the JSON API under /api/ and the
// embedded web page. Set the fields, then call [Server.Open].
type Server struct {
	ln     net.Listener
	server *http.Server
	mux    *http.ServeMux

	mu        sync.Mutex
	loginCode string // the one-time login code; "" once used
	events    events

	// Addr is the address to listen on, 127.0.0.1:0 by default. Any
	// address other than loopback requires Token.
	Addr string

	// Token, when set, is required of every request: as a bearer
	// Authorization header or the cookie the login URL sets.
	Token string

	// Services the routes call: the same the CLI calls.
	Sessions cairn.SessionStore
	Rounds   cairn.RoundStore
	Searcher cairn.Searcher
	Frames   cairn.FrameStore
	Tags     cairn.TagStore
	Lines    cairn.LineStore
	// Engagements gives the matrix its phase rows; nil: a row per
	// engagement.
	Engagements cairn.EngagementStore

	// Export writes what a surgical action made; see [ExportFunc].
	Export ExportFunc
	// Resume returns the command that resumes a stored session, for the
	// refusal of a child already written; nil: "claude --resume ID".
	// cmd/cairn passes the CLI's.
	Resume func(s *cairn.Session) string
	// Image, when set, serves the images of a stored line: see [ImageFunc].
	Image ImageFunc
	// Patch, when set, serves the hunks recorded for an edit: see
	// [PatchFunc].
	Patch PatchFunc
	// Tree, when set, reads a session's lines as its harness's tree, for
	// the branches GET /api/sessions/{id}/branches names.
	Tree TreeFunc
	// OffPath, when set, is surgery's [surgery.Store] OffPath for the
	// surgical actions: the lines of a session off the path its client
	// resumes (a pi session's branches left), which a revive, split or
	// extract leaves out as the CLI's do. cmd/cairn passes the CLI's.
	OffPath func(ctx context.Context, s *cairn.Session) (map[int]bool, error)
	// Retention, when set, serves GET /api/sessions/{id}/retention: what
	// `cairn eval retention` measures, by the same function.
	Retention RetentionFunc

	// MaxConns caps the trusted connections (those whose requests were
	// authorized) open at once; a request that would make one more is
	// answered 503. MaxPending caps the connections not yet trusted, and
	// PendingPerIP those from one address (not on loopback, where every
	// client is one): beyond either, the oldest pending connection (of the
	// address with the most) that waits on its client is closed, so
	// stalled or unauthenticated clients never hold a slot a client with
	// the token needs. 0 means no cap. See limit.go.
	MaxConns, MaxPending, PendingPerIP int
	// StallTimeout is how long a trusted connection may do nothing
	// useful before a request that finds MaxConns open takes its slot;
	// zero keeps [DefaultStallTimeout].
	StallTimeout time.Duration

	// MaxHeavy caps the heavy requests served at once: those of
	// [HeavyRoutes] (surgery, retention), and apart those of [PageRoutes]
	// (a round's page of blocks, an image), so that pages are served
	// while a session's whole work runs. With [MaxPageBytes] and
	// [Server.MaxSessionBlocks] it bounds their memory. At most
	// HeavyQueue more wait for a slot of each, each at most HeavyWait,
	// and only while one is likely to free by then; any other is
	// answered 503 with Retry-After, the seconds until one likely frees
	// (heavy.go). Zero keeps [DefaultHeavyQueue] and [DefaultHeavyWait].
	MaxHeavy   int
	HeavyQueue int
	HeavyWait  time.Duration
	// MaxSessionBlocks caps the blocks of a session whose retention the
	// viewer measures or that it cuts (split, extract, revive): a larger
	// one is answered 413, saying to use the CLI. 0 means no cap; NewServer
	// sets [DefaultMaxSessionBlocks].
	MaxSessionBlocks int

	// Redact, when set, replaces secrets in every API response, a JSON
	// document it redacts value by value; it is required to listen
	// beyond loopback, where the viewer never shows a secret (cmd/cairn
	// passes package redact's Values).
	Redact func(string) string
	// RedactHits, when set, returns the search hits a redacted view
	// shows, their snippets redacted before they are highlighted: none
	// whose query matched only inside a secret. Beyond loopback it is
	// required too (cmd/cairn passes what search --redact does).
	RedactHits func(query string, hits []*cairn.Hit) []*cairn.Hit

	// ReadTimeout bounds reading a request, body included, and
	// IdleTimeout how long a kept-alive connection may wait for the
	// next; zero keeps NewServer's ([DefaultReadTimeout] and
	// [DefaultIdleTimeout]).
	ReadTimeout, IdleTimeout time.Duration

	gate         *gate
	heavy, pages *pool
	streams      streams
}

// Defaults of NewServer: trusted connections and heavy requests at once,
// and the timeouts of reading a request's header, all of it, and of a
// kept-alive connection's wait for its next request. A request body is
// at most MaxBodyBytes.
const (
	DefaultMaxConns          = 64
	DefaultMaxHeavy          = 2
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultReadTimeout       = 30 * time.Second
	DefaultIdleTimeout       = 30 * time.Second
	MaxBodyBytes             = 1 << 20
)

// HeavyRoutes are the routes whose requests take one of [Server.MaxHeavy]
// slots: each reads a whole session, up to [Server.MaxSessionBlocks]
// blocks, and may take seconds and hundreds of megabytes.
var HeavyRoutes = []string{
	"GET /api/sessions/{id}/retention",
	"POST /api/sessions/{id}/split",
	"POST /api/sessions/{id}/extract",
	"POST /api/sessions/{id}/revive",
}

// PageRoutes are the routes whose requests take one of [Server.MaxHeavy]
// slots of their own: each holds a page of a round's blocks
// ([MaxPageBytes]) or an image ([MaxImageBytes]), and its stored line.
var PageRoutes = []string{
	"GET /api/sessions/{id}/rounds/{seq}",
	"GET /api/sessions/{id}/lines/{line}/images/{n}",
	"GET /api/sessions/{id}/lines/{line}/patch",
	"GET /api/sessions/{id}/branches",
}

// NewServer returns a Server with its routes registered.
func NewServer() *Server {
	// A client that stalls (a header or body that never ends, a
	// connection kept idle) is dropped; see also limit.go.
	s := &Server{server: &http.Server{ReadHeaderTimeout: DefaultReadHeaderTimeout, ReadTimeout: DefaultReadTimeout,
		WriteTimeout: 2 * time.Minute, IdleTimeout: DefaultIdleTimeout, MaxHeaderBytes: 64 << 10, ConnContext: connContext},
		mux: http.NewServeMux(), MaxConns: DefaultMaxConns, MaxPending: DefaultMaxPending, PendingPerIP: DefaultPendingPerIP,
		MaxHeavy: DefaultMaxHeavy, MaxSessionBlocks: DefaultMaxSessionBlocks, events: events{closed: make(chan struct{})}}
	s.server.Handler = http.HandlerFunc(s.serveHTTP)

	s.mux.HandleFunc("/", s.handleUI)
	s.mux.HandleFunc("GET /login", s.handleLogin)
	s.mux.HandleFunc("/api/", s.handleNotFound)
	s.registerSessionRoutes()
	s.registerRoundRoutes()
	s.registerSearchRoutes()
	s.registerRetentionRoutes()
	s.registerFrameRoutes()
	s.registerTagRoutes()
	s.registerSurgeryRoutes()
	s.registerEventRoutes()
	return s
}

// Open checks the settings and starts listening.
func (s *Server) Open() (err error) {
	if s.Addr == "" {
		s.Addr = "127.0.0.1:0"
	}
	if !IsLoopback(s.Addr) && s.Token == "" {
		return cairn.Errorf(cairn.EINVALID, "Listening on %s, beyond this machine, requires a token.", s.Addr)
	}
	if !IsLoopback(s.Addr) && (s.Redact == nil || s.RedactHits == nil) {
		return cairn.Errorf(cairn.EINVALID, "Listening on %s, beyond this machine, requires redaction of secrets.", s.Addr)
	}
	if s.Token != "" {
		s.loginCode = RandomToken()
	}
	if s.ln, err = net.Listen("tcp", s.Addr); err != nil {
		return err
	}
	if s.StallTimeout <= 0 {
		s.StallTimeout = DefaultStallTimeout
	}
	perIP := s.PendingPerIP
	if IsLoopback(s.Addr) {
		perIP = 0 // every client is this machine: one address
	}
	s.gate = newGate(s.ln, s.MaxPending, perIP, s.MaxConns, s.StallTimeout)
	s.ln = s.gate
	if s.MaxHeavy > 0 {
		queue, wait := cmp.Or(s.HeavyQueue, DefaultHeavyQueue), cmp.Or(s.HeavyWait, DefaultHeavyWait)
		s.heavy, s.pages = newPool(s.MaxHeavy, queue, wait), newPool(s.MaxHeavy, queue, wait)
	}
	if s.ReadTimeout > 0 {
		s.server.ReadTimeout = s.ReadTimeout
		s.server.ReadHeaderTimeout = min(s.server.ReadHeaderTimeout, s.ReadTimeout)
	}
	if s.IdleTimeout > 0 {
		s.server.IdleTimeout = s.IdleTimeout
	}
	go s.server.Serve(s.ln)
	return nil
}

// Close gracefully shuts down the server.
func (s *Server) Close() error {
	if s.ln == nil {
		return nil
	}
	s.mu.Lock()
	select {
	case <-s.events.closed:
	default:
		close(s.events.closed) // event streams end, so shutdown need not wait for them
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	return s.server.Shutdown(ctx)
}

// Port returns the TCP port of the running server: useful when Addr asked
// for port 0.
func (s *Server) Port() int {
	if s.ln == nil {
		return 0
	}
	return s.ln.Addr().(*net.TCPAddr).Port
}

// URL returns the base URL of the running server. A server listening on
// every interface (0.0.0.0, ::, no host) is named by an address another
// machine reaches it at: its login URL is for a browser elsewhere.
func (s *Server) URL() string {
	host, _, _ := net.SplitHostPort(s.Addr)
	if host == "" || host == "0.0.0.0" || host == "::" {
		host = reachableHost()
	}
	return "http://" + net.JoinHostPort(host, fmt.Sprint(s.Port()))
}

// interfaceAddrs lists this machine's addresses; tests replace it.
var interfaceAddrs = net.InterfaceAddrs

// reachableHost is this machine's first global unicast address (IPv4
// first), else its host name, else localhost.
func reachableHost() string {
	addrs, _ := interfaceAddrs()
	var v6 string
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok || !n.IP.IsGlobalUnicast() {
			continue
		}
		if n.IP.To4() != nil {
			return n.IP.String()
		}
		if v6 == "" {
			v6 = n.IP.String()
		}
	}
	if v6 != "" {
		return v6
	}
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "localhost"
}

// LoginURL returns the one-time URL that sets the token cookie in a
// browser, or the plain URL when no token is required.
func (s *Server) LoginURL() string {
	if s.Token == "" {
		return s.URL() + "/"
	}
	return s.URL() + "/login?code=" + url.QueryEscape(s.loginCode)
}

// IsLoopback reports whether addr (host:port) listens on this machine only.
// An empty host listens on every interface.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// RandomToken returns 32 random bytes in hex.
func RandomToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(err) // crypto/rand does not fail on supported platforms
	}
	return hex.EncodeToString(b)
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'")

	r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)

	switch {
	case s.Token == "" && !loopbackHost(r.Host):
		// Bound to loopback without a token: a page that rebinds its own
		// DNS name to 127.0.0.1 must not read the store.
		h.Set("Connection", "close") // an untrusted connection is not kept
		writeJSON(w, http.StatusForbidden, &ErrorResponse{Error: "Host " + r.Host + " is not this machine."})
		return
	case r.URL.Path == "/login":
	case !s.authorized(r):
		h.Set("Connection", "close")
		writeJSON(w, http.StatusUnauthorized, &ErrorResponse{Error: "Token required: open the login URL cairn serve printed, or send Authorization: Bearer TOKEN."})
		return
	case !s.trust(r):
		h.Set("Connection", "close")
		writeJSON(w, http.StatusServiceUnavailable, &ErrorResponse{Error: "Too many connections: close some and try again."})
		return
	case mutating(r.Method) && !sameSite(r):
		writeJSON(w, http.StatusForbidden, &ErrorResponse{Error: "Cross-site request refused: send the " + CSRFHeader + " header from this origin."})
		return
	}
	if c, ok := r.Context().Value(connKey{}).(*gatedConn); ok {
		var done func()
		r.Body, done = c.serve(r.Body)
		defer done()
	}
	if !bounded(w, r) {
		return
	}
	if r.URL.Path == "/api/events" {
		var done func()
		r, done = s.streams.add(r)
		defer done()
		h.Set("Connection", "close") // a stream closed for a newer one frees its connection
	}
	if p := s.pool(r); p != nil {
		release, eta := p.acquire(r.Context())
		if release == nil {
			if eta > 0 { // else the client went away
				busy(w, eta)
			}
			return
		}
		defer release() // after redaction, which holds the response twice
	}
	// The event stream names changed sessions only, and must not be held
	// back: it is not redacted.
	if s.Redact != nil && strings.HasPrefix(r.URL.Path, "/api/") && r.URL.Path != "/api/events" {
		rw := &redactingWriter{ResponseWriter: w, status: http.StatusOK}
		s.mux.ServeHTTP(rw, r)
		w.WriteHeader(rw.status)
		io.WriteString(w, s.Redact(rw.buf.String()))
		return
	}
	s.mux.ServeHTTP(w, r)
}

// pool returns the pool whose slot r takes, or nil.
func (s *Server) pool(r *http.Request) *pool {
	_, pattern := s.mux.Handler(r)
	switch {
	case s.heavy == nil:
		return nil
	case slices.Contains(HeavyRoutes, pattern):
		return s.heavy
	case slices.Contains(PageRoutes, pattern):
		return s.pages
	}
	return nil
}

// redactingWriter holds a response so its secrets can be replaced before
// it is sent. Responses are bounded (a round's blocks come in pages).
type redactingWriter struct {
	http.ResponseWriter
	status int
	buf    bytes.Buffer
}

func (w *redactingWriter) WriteHeader(status int)      { w.status = status }
func (w *redactingWriter) Write(p []byte) (int, error) { return w.buf.Write(p) }

// authorized reports whether r carries the token, when one is required.
func (s *Server) authorized(r *http.Request) bool {
	return hasToken(r, s.Token)
}

// trust makes the connection of r, an authorized request, trusted, and
// reports false when [Server.MaxConns] are open already.
func (s *Server) trust(r *http.Request) bool {
	c, ok := r.Context().Value(connKey{}).(*gatedConn)
	return !ok || c.gate.trust(c)
}

// hasToken reports whether r carries token as a bearer header or in the
// token cookie; every request does when token is empty.
func hasToken(r *http.Request, token string) bool {
	if token == "" {
		return true
	}
	got := ""
	if v := r.Header.Get("Authorization"); strings.HasPrefix(v, "Bearer ") {
		got = strings.TrimPrefix(v, "Bearer ")
	} else if c, err := r.Cookie(TokenCookie); err == nil {
		got = c.Value
	}
	return subtle.ConstantTimeCompare([]byte(got), []byte(token)) == 1
}

// Guard wraps h with the rules every cairn HTTP endpoint keeps, for
// servers other than [Server] (cairn mcp --http): with a token, every
// request must carry it; without one, only requests addressed to this
// machine are served, so a page that rebinds its DNS name to 127.0.0.1
// cannot reach the store.
func Guard(token string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case token == "" && !loopbackHost(r.Host):
			writeJSON(w, http.StatusForbidden, &ErrorResponse{Error: "Host " + r.Host + " is not this machine."})
		case !hasToken(r, token):
			writeJSON(w, http.StatusUnauthorized, &ErrorResponse{Error: "Token required: send Authorization: Bearer TOKEN."})
		default:
			h.ServeHTTP(w, r)
		}
	})
}

func mutating(method string) bool {
	return method != http.MethodGet && method != http.MethodHead && method != http.MethodOptions
}

// sameSite reports whether a mutating request comes from this server's own
// page: it carries [CSRFHeader], and its Origin, if any, is this host.
func sameSite(r *http.Request) bool {
	if r.Header.Get(CSRFHeader) == "" {
		return false
	}
	if o := r.Header.Get("Origin"); o != "" {
		u, err := url.Parse(o)
		return err == nil && u.Host == r.Host
	}
	return true
}

func loopbackHost(hostport string) bool {
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		host = hostport
	}
	host = strings.Trim(host, "[]")
	return host == "localhost" || IsLoopback(net.JoinHostPort(host, "0"))
}

// handleLogin handles GET /login?code=…: the one-time URL sets the token
// cookie and is spent.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request) {
	code := r.URL.Query().Get("code")
	s.mu.Lock()
	ok := s.Token != "" && s.loginCode != "" && subtle.ConstantTimeCompare([]byte(code), []byte(s.loginCode)) == 1
	if ok {
		s.loginCode = ""
	}
	s.mu.Unlock()
	if !ok {
		writeJSON(w, http.StatusUnauthorized, &ErrorResponse{Error: "This login URL is not valid or was used already."})
		return
	}
	http.SetCookie(w, &http.Cookie{Name: TokenCookie, Value: s.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, "/", http.StatusSeeOther)
}

// handleUI serves the embedded page's files, and nothing else.
func (s *Server) handleUI(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		writeJSON(w, http.StatusMethodNotAllowed, &ErrorResponse{Error: "Method not allowed."})
		return
	}
	if r.URL.Path == "/favicon.ico" { // browsers ask for it whatever the page says
		http.ServeFileFS(w, r, ui.FS, "favicon.svg")
		return
	}
	ui.Handler.ServeHTTP(w, r)
}

// handleNotFound answers API paths that match no route.
func (s *Server) handleNotFound(w http.ResponseWriter, r *http.Request) {
	Error(w, r, cairn.Errorf(cairn.ENOTFOUND, "No API endpoint %s %s.", r.Method, r.URL.Path))
}
