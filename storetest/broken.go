package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// driverText is what SQLite, PostgreSQL, their Go drivers and the
// network say when they fail: none of it may reach a person.
var driverText = []string{
	"SQL logic error", "no such table", "no such column", "constraint failed", "database is locked",
	"disk I/O error", "file is not a database", "readonly database", "disk image is malformed",
	"unable to open database", "sql: ", "pq: ", "pgx", "pgconn", "SQLSTATE", "ERROR: ", "conn closed",
	"closed pool", "tx is closed", "context deadline exceeded", "context canceled", "dial tcp",
	"connection refused", "failed to connect", "i/o timeout", "unexpected EOF", "broken pipe",
	"relation \"", "cairn error: code=",
}

// DriverText returns the first piece of SQL or driver text in s, or "":
// what tests of every edge check a person's message for.
func DriverText(s string) string {
	for _, t := range driverText {
		if strings.Contains(s, t) {
			return t
		}
	}
	return ""
}

// Broken calls every method of every store st holds on a store the
// caller broke (damaged, closed, unreachable, of another schema), with
// plain arguments, and checks what each failure says: a [cairn.Error]
// whose message holds no SQL or driver text, and, when it translates a
// driver error (its Err is set), names the store (mention) and keeps that
// error as its cause. At least one call must fail: else the store was
// not broken. No call may panic.
func Broken(t *testing.T, st *Store, mention string) {
	t.Helper()
	failed := 0
	v := reflect.ValueOf(st).Elem()
	for i := range v.NumField() {
		store := v.Field(i)
		if store.IsNil() {
			continue
		}
		for j := range store.NumMethod() {
			name := v.Type().Field(i).Name + "." + store.Type().Method(j).Name
			err := call(store.Method(j))
			if err == nil {
				continue
			}
			failed++
			var e *cairn.Error
			switch {
			case errors.Is(err, errCallback):
			case !errors.As(err, &e):
				t.Errorf("%s: %v is not a cairn.Error", name, err)
			case DriverText(e.Message) != "":
				t.Errorf("%s: message %q holds %q", name, e.Message, DriverText(e.Message))
			case e.Err != nil && !strings.Contains(e.Message, mention):
				t.Errorf("%s: message %q does not name the store (%s)", name, e.Message, mention)
			}
		}
	}
	if failed == 0 {
		t.Error("no call failed: the store is not broken")
	}
}

// errCallback is what the callbacks [call] passes return: the store
// returns it as it is.
var errCallback = errors.New("the callback was called")

// call calls m with a background context, "x" for strings, 1 for ints,
// zero values for the rest (pointers to zero structs whose pointers are
// to zero structs too, callbacks that fail), releases what it returns, and returns its error; a panic is an
// error too.
func call(m reflect.Value) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	ctxType := reflect.TypeFor[context.Context]()
	errType := reflect.TypeFor[error]()
	var args []reflect.Value
	for k := range m.Type().NumIn() {
		in := m.Type().In(k)
		a := reflect.New(in).Elem()
		switch {
		case in == ctxType:
			a = reflect.ValueOf(context.Background())
		case in.Kind() == reflect.String:
			a.SetString("x")
		case in.Kind() == reflect.Int:
			a.SetInt(1)
		case in.Kind() == reflect.Pointer:
			a = reflect.New(in.Elem())
			if in.Elem().Kind() == reflect.Struct {
				for f := range in.Elem().NumField() {
					if fv := a.Elem().Field(f); fv.CanSet() && fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.Struct {
						fv.Set(reflect.New(fv.Type().Elem()))
					}
				}
			}
		case in.Kind() == reflect.Func:
			a = reflect.MakeFunc(in, func([]reflect.Value) []reflect.Value {
				out := make([]reflect.Value, in.NumOut())
				for o := range out {
					out[o] = reflect.Zero(in.Out(o))
					if in.Out(o) == errType {
						out[o] = reflect.ValueOf(&errCallback).Elem()
					}
				}
				return out
			})
		}
		args = append(args, a)
	}
	out := m.Call(args)
	for _, o := range out[:len(out)-1] {
		if o.Kind() == reflect.Func && !o.IsNil() {
			o.Call(nil)
		}
	}
	if last := out[len(out)-1]; !last.IsNil() {
		return last.Interface().(error)
	}
	return nil
}
