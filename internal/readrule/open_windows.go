//go:build windows

package readrule

import (
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/windows"
)

// openNamed opens a path the person named, following its links.
func openNamed(path string) (*os.File, error) { return os.Open(path) }

// openBeneath opens rel below the folder dir after checking that no
// component is a link (errLink), then asks Windows which path the opened
// handle holds: a folder swapped for a link (a symbolic link or a
// junction) between the check and the open leaves a handle elsewhere than
// below dir, and is refused as a link. The folder dir itself was named by
// the person (or is the client's), and may sit behind links of its own.
func openBeneath(dir, rel string) (*os.File, error) {
	p, err := checkBeneath(dir, rel)
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	d, err := os.Open(dir)
	if err != nil {
		f.Close()
		return nil, err
	}
	base, err := finalPath(d)
	d.Close()
	if err != nil {
		f.Close()
		return nil, err
	}
	got, err := finalPath(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	want := strings.TrimRight(base, `\`) + `\` + filepath.Clean(rel)
	if !strings.EqualFold(got, want) {
		f.Close()
		return nil, errLink
	}
	return f, nil
}

// The flags GetFinalPathNameByHandle takes (x/sys names none of them): a
// normalized path with its drive letter.
const (
	fileNameNormalized = 0x0
	volumeNameDOS      = 0x0
)

// finalPath is the path Windows gives f's handle, every link resolved.
func finalPath(f *os.File) (string, error) {
	h := windows.Handle(f.Fd())
	buf := make([]uint16, windows.MAX_PATH)
	for {
		n, err := windows.GetFinalPathNameByHandle(h, &buf[0], uint32(len(buf)), fileNameNormalized|volumeNameDOS)
		if err != nil {
			return "", err
		}
		if int(n) < len(buf) {
			return windows.UTF16ToString(buf[:n]), nil
		}
		buf = make([]uint16, n)
	}
}
