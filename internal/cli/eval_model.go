//go:build !lean

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// messagesAPI asks a model through the Anthropic Messages API: the
// variant's text as the system prompt, the probe's question as the user's.
type messagesAPI struct {
	base, key, model string
	client           *http.Client
}

func newMessagesAPI(getenv func(string) string, model string) *messagesAPI {
	base := getenv("ANTHROPIC_BASE_URL")
	if base == "" {
		base = "https://api.anthropic.com"
	}
	return &messagesAPI{base: strings.TrimSuffix(base, "/"), key: getenv("ANTHROPIC_API_KEY"), model: model,
		client: &http.Client{Timeout: 120 * time.Second}}
}

func (a *messagesAPI) url() string {
	if a == nil {
		return ""
	}
	return a.base + "/v1/messages"
}

// note says when the answers come from a stand-in on this machine: then
// the figures prove the plumbing and nothing about retention.
func (a *messagesAPI) note() string {
	if a == nil {
		return ""
	}
	u, err := url.Parse(a.base)
	if err != nil {
		return ""
	}
	switch h := u.Hostname(); {
	case h == "localhost" || h == "::1" || strings.HasPrefix(h, "127."):
		return "The API is on this machine (a stand-in): these answers prove the plumbing, not what a model retains."
	}
	return ""
}

// Ask implements [retention.Asker].
func (a *messagesAPI) Ask(ctx context.Context, text, question string) (string, error) {
	body, _ := json.Marshal(map[string]any{
		"model": a.model, "max_tokens": 256,
		"system":   "Answer from the conversation below only, quoting names, paths, commands and figures exactly.\n\n" + text,
		"messages": []map[string]any{{"role": "user", "content": question}},
	})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, a.url(), bytes.NewReader(body))
	if err != nil {
		return "", err
	}
	req.Header.Set("content-type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("x-api-key", a.key)
	resp, err := a.client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %s: %s", a.url(), resp.Status, bytes.TrimSpace(data))
	}
	var out struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return "", fmt.Errorf("%s: %w", a.url(), err)
	}
	var b strings.Builder
	for _, c := range out.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String(), nil
}
