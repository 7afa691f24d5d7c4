package http_test

import (
	"net/http"
	"net/http/httptest"
	"testing"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

func TestGuard(t *testing.T) {
	ok := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	for _, c := range []struct {
		name, token, host, auth string
		want                    int
	}{
		{"LoopbackNoToken", "", "127.0.0.1:7878", "", http.StatusNoContent},
		{"LocalhostNoToken", "", "localhost:7878", "", http.StatusNoContent},
		{"ErrRebindNoToken", "", "evil.example:7878", "", http.StatusForbidden},
		{"TokenGiven", "s3cret", "10.0.0.5:7878", "Bearer s3cret", http.StatusNoContent},
		{"ErrTokenMissing", "s3cret", "10.0.0.5:7878", "", http.StatusUnauthorized},
		{"ErrTokenWrong", "s3cret", "10.0.0.5:7878", "Bearer s3cre", http.StatusUnauthorized},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "http://"+c.host+"/", nil)
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			w := httptest.NewRecorder()
			cairnhttp.Guard(c.token, ok).ServeHTTP(w, r)
			if w.Code != c.want {
				t.Fatalf("status = %d, want %d (%s)", w.Code, c.want, w.Body)
			}
		})
	}
}
