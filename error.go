package cairn

import (
	"errors"
	"fmt"
)

// Error codes shared by every layer. Each edge maps them once: the CLI to an
// exit message, HTTP to a status, MCP to a tool error.
const (
	ECONFLICT = "conflict"
	EINTERNAL = "internal"
	EINVALID  = "invalid"
	ENOTFOUND = "not_found"
)

// Error is a domain error: a machine-readable code and a message for people.
type Error struct {
	Code    string
	Message string

	// Err is the cause, when the error translates another (a store
	// driver's): kept for [errors.Is] and [errors.As] and for debugging,
	// never part of Message.
	Err error
}

// Error implements the error interface.
func (e *Error) Error() string {
	return fmt.Sprintf("cairn error: code=%s message=%s", e.Code, e.Message)
}

// Unwrap returns the cause, or nil.
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an [Error] with the given code and formatted message.
func Errorf(code string, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrorCode returns the code of the first [Error] in err's chain, "" for a
// nil error and [EINTERNAL] for any other error.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message of the first [Error] in err's chain, or
// a generic message for errors that are not domain errors.
func ErrorMessage(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Message
	}
	return "Internal error."
}
