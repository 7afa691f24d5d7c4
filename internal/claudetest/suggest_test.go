package claudetest_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestSuggestHook has the real client submit prompts in a project where
// cairn is installed and a frame is in progress: a prompt that lists three
// tasks about the frame's work gets the plan suggestion, one that asks for
// work unlike the frame gets the push suggestion, each in the request the
// client sends after the prompt (the UserPromptSubmit hook's context), and
// a second list of tasks under the same frame gets no second plan line. It
// runs on the oldest supported and the newest tested release.
func TestSuggestHook(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			api := fakeapi.New()
			defer api.Close()
			home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
			mustCairn(t, cairnBin, proj, "install", "claude")
			mustCairn(t, cairnBin, proj, "push", "Wire the payments", "--root", "--criteria", "card payments are taken and refunded")

			// sent returns the body of the last request that carried prompt.
			sent := func(prompt string) string {
				t.Helper()
				var body []byte
				for _, r := range api.Requests() {
					if strings.Contains(r.Path, "/v1/messages") && !strings.Contains(r.Path, "count_tokens") && bytes.Contains(r.Body, []byte(jsonQuote(prompt))) {
						body = r.Body
					}
				}
				if body == nil {
					t.Fatalf("no request carried %q", prompt)
				}
				return string(body)
			}
			run := func(args ...string) string {
				t.Helper()
				res := claudetest.Run(t, c.Path, home, proj, api.URL, args...)
				if res.IsError {
					t.Fatalf("claude %v: %+v", args, res)
				}
				return res.SessionID
			}

			plan := "For the payments:\n1. add the refunds table\n2. add the refund route\n3. write the tests for both"
			id := run("-p", plan)
			if body := sent(plan); !strings.Contains(body, "cairn suggests plan:") {
				t.Errorf("the request after a list of three tasks holds no plan suggestion:\n%.2000s", body)
			}
			unlike := "Write the billing export to CSV for the accountants"
			run("--resume", id, "-p", unlike)
			if body := sent(unlike); !strings.Contains(body, "cairn suggests push:") {
				t.Errorf("the request after work unlike the frame holds no push suggestion:\n%.2000s", body)
			}
			again := "For the payments again:\n1. add the chargebacks table\n2. add the chargeback route\n3. write their tests"
			run("--resume", id, "-p", again)
			if body := sent(again); strings.Count(body, "cairn suggests plan:") > 1 {
				t.Errorf("a second plan suggestion under the same frame (once per frame per kind):\n%.2000s", body)
			}
		})
	}
}
