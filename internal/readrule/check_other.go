//go:build !unix

package readrule

import (
	"os"
	"path/filepath"
	"strings"
)

// checkBeneath returns rel joined below the folder dir after checking that
// no component is a link (errLink), nor "." or "..".
func checkBeneath(dir, rel string) (string, error) {
	p := dir
	for _, c := range strings.Split(rel, string(filepath.Separator)) {
		if c == "" || c == "." || c == ".." {
			return "", errLink
		}
		p = filepath.Join(p, c)
		info, err := os.Lstat(p)
		if err != nil {
			return "", err
		}
		if info.Mode()&os.ModeSymlink != 0 {
			return "", errLink
		}
	}
	return p, nil
}
