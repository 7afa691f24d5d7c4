package http_test

import (
	"net/http"
	"strings"
	"testing"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:7070": true, "localhost:0": true, "[::1]:80": true, "127.0.0.2:1": true,
		":7070": false, "0.0.0.0:7070": false, "192.168.1.5:7070": false, "example.com:80": false,
	} {
		if got := cairnhttp.IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}

func TestServer_Open(t *testing.T) {
	t.Run("ErrTokenRequired", func(t *testing.T) {
		s := cairnhttp.NewServer()
		s.Addr = "0.0.0.0:0"
		if err := s.Open(); err == nil || !strings.Contains(err.Error(), "token") {
			s.Close()
			t.Fatalf("Open on 0.0.0.0 without a token: %v", err)
		}
	})
	t.Run("DefaultLoopback", func(t *testing.T) {
		s := cairnhttp.NewServer()
		s.Addr = ""
		if err := s.Open(); err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") {
			t.Fatalf("URL %s: want loopback", s.URL())
		}
	})
}

// A page on another site must not change the store.
func TestServer_CSRF(t *testing.T) {
	s, _ := MustOpenServer(t)
	// Any mutating request will do: the check comes before routing.
	WantError(t, s, "POST", "/api/sessions/x/tags", "{}", 403, "Cross-site", cairnhttp.CSRFHeader, "")
	WantError(t, s, "DELETE", "/api/sessions/x", "", 403, "Cross-site", cairnhttp.CSRFHeader, "")
	WantError(t, s, "POST", "/api/sessions/x/tags", "{}", 403, "Cross-site", "Origin", "http://evil.example")
	// With the header, from the same origin, the request is routed.
	if code, _ := Do(t, s, "POST", "/api/sessions/x/tags", "{}", "Origin", s.URL()); code == 403 {
		t.Fatal("same-origin request refused")
	}
	// No CORS: a preflight gets no permission.
	code, _ := Do(t, s, "OPTIONS", "/api/sessions", "", "Origin", "http://evil.example", "Access-Control-Request-Method", "POST")
	if code == 200 || code == 204 {
		t.Fatalf("preflight answered %d", code)
	}
}

// Bound to loopback without a token, the server answers only requests
// addressed to this machine, so DNS rebinding cannot reach the store.
func TestServer_Host(t *testing.T) {
	s, _ := MustOpenServer(t)
	WantError(t, s, "GET", "/api/sessions", "", 403, "not this machine", "Host", "attacker.example:80")
	for _, host := range []string{"localhost", "127.0.0.1:1234", "[::1]:80"} {
		if code, body := Do(t, s, "GET", "/api/sessions", "", "Host", host); code != 200 {
			t.Errorf("Host %s: %d %s", host, code, body)
		}
	}
}

func TestServer_Token(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Token = cairnhttp.RandomToken()
	MustOpen(t, s)

	t.Run("ErrUnauthorized", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions", "", 401, "Token required")
		WantError(t, s, "GET", "/", "", 401, "Token required")
		WantError(t, s, "GET", "/api/sessions", "", 401, "Token required", "Authorization", "Bearer wrong")
		WantError(t, s, "GET", "/api/sessions", "", 401, "Token required", "Cookie", cairnhttp.TokenCookie+"=wrong")
	})
	t.Run("Bearer", func(t *testing.T) {
		if code, _ := Do(t, s, "GET", "/api/sessions", "", "Authorization", "Bearer "+s.Token); code != 200 {
			t.Fatalf("with the bearer token: %d", code)
		}
		// Any host is fine once the token is required: it binds beyond loopback.
		if code, _ := Do(t, s, "GET", "/api/sessions", "", "Authorization", "Bearer "+s.Token, "Host", "cairn.lan:7070"); code != 200 {
			t.Fatalf("with the bearer token from another host name: %d", code)
		}
	})
	t.Run("LoginOnce", func(t *testing.T) {
		login := strings.TrimPrefix(s.LoginURL(), s.URL())
		if !strings.HasPrefix(login, "/login?code=") || strings.Contains(login, s.Token) {
			t.Fatalf("login URL %s: want a one-time code, not the token", login)
		}
		req, _ := http.NewRequest("GET", s.URL()+login, nil)
		resp, err := (&http.Transport{}).RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var cookie *http.Cookie
		for _, c := range resp.Cookies() {
			if c.Name == cairnhttp.TokenCookie {
				cookie = c
			}
		}
		if resp.StatusCode != http.StatusSeeOther || cookie == nil || !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode {
			t.Fatalf("login: %d, cookie %+v", resp.StatusCode, cookie)
		}
		if code, _ := Do(t, s, "GET", "/api/sessions", "", "Cookie", cookie.Name+"="+cookie.Value); code != 200 {
			t.Fatalf("with the cookie: %d", code)
		}
		WantError(t, s, "GET", login, "", 401, "used already")
	})
}
