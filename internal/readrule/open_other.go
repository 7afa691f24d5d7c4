//go:build !unix && !windows

package readrule

import "os"

// openNamed opens a path the person named, following its links.
func openNamed(path string) (*os.File, error) { return os.Open(path) }

// openBeneath opens rel below the folder dir after checking that no
// component is a link (errLink). Without openat or a handle's final path,
// a link put in the path between the check and the open is not caught
// here; the caller's check that the file is regular still holds.
func openBeneath(dir, rel string) (*os.File, error) {
	p, err := checkBeneath(dir, rel)
	if err != nil {
		return nil, err
	}
	return os.Open(p)
}
