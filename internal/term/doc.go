// Package term runs a terminal program in a pseudo-terminal for the
// end-to-end tests: a real client's full-screen interface, typed into as
// a person types ([Term.Type], [Term.Keys]) and read as a person reads it
// ([Term.Screen], a small terminal emulator, since a full-screen program
// redraws only the cells that changed) or in the order it was drawn
// ([Term.TextSince], [Plain]). The pseudo-terminal is opened with ioctls
// (Linux only, no dependency); [Plain] and the screen build everywhere.
package term
