#!/usr/bin/env bash
# Every release target builds and vets without cgo: Linux, macOS and
# Windows on amd64 and arm64, both builds (cmd/cairn -tags lean: cairn;
# cmd/cairn-full) and every package's tests (go vet with GOOS set compiles
# them). Run by .ci/run; alone: .ci/cross.sh [GOOS/GOARCH ...].
set -euo pipefail
cd "$(dirname "$0")/.."
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
for t in "${targets[@]}"; do
  goos=${t%/*} goarch=${t#*/}
  echo "-- $goos/$goarch"
  export CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch
  go vet ./...
  go vet -tags lean ./cmd/cairn ./internal/cli
  go build -o /dev/null ./cmd/cairn-full
  go build -tags lean -o /dev/null ./cmd/cairn
done
