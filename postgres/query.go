package postgres

import (
	"strconv"
	"strings"
)

// query builds a WHERE clause whose conditions are written with '?' and
// numbered ($1, $2, …) as they are added.
type query struct {
	conds []string
	args  []any
}

// where adds a condition; each '?' in cond takes the next of args.
func (q *query) where(cond string, args ...any) {
	q.conds = append(q.conds, q.number(cond, args))
}

// arg returns s with its '?' numbered as the next argument, v.
func (q *query) arg(s string, v any) string { return q.number(s, []any{v}) }

func (q *query) number(s string, args []any) string {
	var b strings.Builder
	for _, part := range strings.SplitAfter(s, "?") {
		if strings.HasSuffix(part, "?") && len(args) > 0 {
			q.args = append(q.args, args[0])
			args = args[1:]
			part = strings.TrimSuffix(part, "?") + "$" + strconv.Itoa(len(q.args))
		}
		b.WriteString(part)
	}
	return b.String()
}

// cond returns "WHERE …" joining the conditions with AND, or "".
func (q *query) cond() string {
	if len(q.conds) == 0 {
		return ""
	}
	return "WHERE " + strings.Join(q.conds, " AND ")
}

func itoa(n int) string { return strconv.Itoa(n) }
