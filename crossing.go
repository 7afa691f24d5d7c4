package cairn

// A Crossing counts what rounds of another harness lost on their way into
// an export: thinking dropped (it belongs to the other vendor's model and
// carries its signature), tool calls that became the target client's own
// tools, and calls rendered as text.
type Crossing struct {
	ThinkingDropped int `json:"thinking_dropped"`
	CallsMapped     int `json:"calls_mapped"`
	CallsAsText     int `json:"calls_as_text"`
}
