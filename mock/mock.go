// Package mock holds function-field mocks of cairn's store interfaces, for
// testing edges on paths a real store rarely takes (internal errors).
package mock
