package workspace

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

var _ cairn.TodoStore = (*Workspace)(nil)

// ReadTodos returns todos.json as it is now, or an empty list if there is
// none. Returns EINVALID, naming line and column, if the file is malformed.
func (w *Workspace) ReadTodos() (*cairn.TodoList, error) {
	l := &cairn.TodoList{Todos: []*cairn.Todo{}}
	return l, readJSON(w.path(cairn.TodosFile), cairn.TodosFile, todosSchema, l)
}

// UpdateTodos applies fn to todos.json as it is on disk, under the lock.
// Nothing is written if fn or the file fails.
func (w *Workspace) UpdateTodos(fn func(*cairn.TodoList) error) (*cairn.TodoList, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	l, err := w.ReadTodos()
	if err != nil {
		return nil, err
	}
	if err := fn(l); err != nil {
		return nil, err
	}
	return l, writeJSON(w.path(cairn.TodosFile), l)
}

// AddTodo adds a pending todo numbered after the highest one. Returns
// EINVALID for an empty title or an unknown priority.
func (w *Workspace) AddTodo(title, priority, notes string) (*cairn.Todo, error) {
	title = strings.TrimSpace(title)
	if title == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "A todo needs a title.")
	}
	if priority == "" {
		priority = cairn.PriorityMedium
	} else if !contains([]string{cairn.PriorityHigh, cairn.PriorityMedium, cairn.PriorityLow}, priority) {
		return nil, cairn.Errorf(cairn.EINVALID, "Priority must be high, medium or low, not %q.", priority)
	}
	var t *cairn.Todo
	_, err := w.UpdateTodos(func(l *cairn.TodoList) error {
		n := 0
		for _, t := range l.Todos {
			n = max(n, todoNumber(t.ID))
		}
		t = &cairn.Todo{ID: fmt.Sprintf("TODO-%03d", n+1), Title: title, Priority: priority,
			Status: cairn.TodoPending, Created: w.now(), Notes: notes}
		l.Todos = append(l.Todos, t)
		return nil
	})
	return t, err
}

// SetTodoStatus moves the todo named by ref (TODO-007, 007 or 7) to status
// and appends notes to its notes. Completing records completed_at;
// blocking needs a reason in notes. Returns ENOTFOUND for an unknown todo
// and EINVALID for a block without a reason.
func (w *Workspace) SetTodoStatus(ref, status, notes string) (*cairn.Todo, error) {
	if status == cairn.TodoBlocked && strings.TrimSpace(notes) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "Say why %s is blocked: the reason goes in its notes.", ref)
	}
	var t *cairn.Todo
	_, err := w.UpdateTodos(func(l *cairn.TodoList) error {
		if t = findTodo(l, ref); t == nil {
			return cairn.Errorf(cairn.ENOTFOUND, "No todo %s in todos.json.", ref)
		}
		now := w.now()
		t.Status, t.Updated = status, &now
		if status == cairn.TodoCompleted {
			t.CompletedAt = &now
		} else {
			t.CompletedAt = nil
		}
		if notes = strings.TrimSpace(notes); notes != "" {
			if t.Notes != "" {
				notes = t.Notes + "; " + notes
			}
			t.Notes = notes
		}
		return nil
	})
	return t, err
}

// ReviewTodos records that every todo was reviewed now.
func (w *Workspace) ReviewTodos() (*cairn.TodoList, error) {
	return w.UpdateTodos(func(l *cairn.TodoList) error {
		now := w.now()
		l.LastReview = &now
		return nil
	})
}

func findTodo(l *cairn.TodoList, ref string) *cairn.Todo {
	n := todoNumber(ref)
	for _, t := range l.Todos {
		if t.ID == ref || n > 0 && todoNumber(t.ID) == n {
			return t
		}
	}
	return nil
}

// todoNumber reads 7 from TODO-007, 007 or 7, and 0 from anything else.
func todoNumber(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(id), "TODO-"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}
