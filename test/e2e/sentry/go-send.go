// Sends one exception per user id and one message with sentry-go (Debian golang-github-getsentry-sentry-go-dev 0.11).
// Usage: go-send <dsn> <user ids, comma-separated>. Prints one JSON line per HTTP request it made to the DSN.
// Built offline in GOPATH mode (GO111MODULE=off GOPATH=<tmp>:/usr/share/gocode) by the test.
package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/getsentry/sentry-go"
	"github.com/pkg/errors"
)

// recorder wraps the transport so the test sees every status the server answered.
type recorder struct {
	mu    sync.Mutex
	sends []map[string]interface{}
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := http.DefaultTransport.RoundTrip(req)
	entry := map[string]interface{}{"path": req.URL.Path}
	if err != nil {
		entry["error"] = err.Error()
	} else {
		entry["status"] = res.StatusCode
	}
	r.mu.Lock()
	r.sends = append(r.sends, entry)
	r.mu.Unlock()
	return res, err
}

// divide fails with a pkg/errors error, which carries the stack trace of this call.
func divide(a, b int) (int, error) {
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	return a / b, nil
}

func checkout() error {
	_, err := divide(1, 0)
	return err
}

func main() {
	dsn, users := os.Args[1], strings.Split(os.Args[2], ",")
	rec := &recorder{}
	err := sentry.Init(sentry.ClientOptions{
		Dsn:           dsn,
		Release:       "svc-e2e@1.2.3",
		Environment:   "e2e",
		ServerName:    "e2e-host",
		Debug:         true,
		HTTPTransport: rec,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "sentry.Init:", err)
		os.Exit(2)
	}
	for _, id := range users {
		sentry.WithScope(func(scope *sentry.Scope) {
			scope.SetUser(sentry.User{ID: id, Email: "user" + id + "@example.com"})
			scope.SetTag("feature", "checkout")
			if err := checkout(); err != nil {
				sentry.CaptureException(err)
			}
		})
	}
	sentry.WithScope(func(scope *sentry.Scope) {
		scope.SetUser(sentry.User{ID: users[0], Email: "user" + users[0] + "@example.com"})
		scope.SetLevel(sentry.LevelWarning)
		sentry.CaptureMessage("svc e2e message from sentry-go")
	})
	if !sentry.Flush(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "sentry.Flush timed out")
		os.Exit(3)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, s := range rec.sends {
		line, _ := json.Marshal(s)
		fmt.Println("SEND " + string(line))
	}
}
