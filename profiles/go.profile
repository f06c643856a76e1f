# go: ~/go/pkg and ~/.cache/go-build writable (made when missing; not ~/go/bin: set GOBIN); the Go module proxy for --net proxy
#
# go: the module cache and checksum database (~/go/pkg, under GOPATH's
# default ~/go) and the build cache writable (made when missing, with ~/go
# and ~/.cache, which are made but not granted), the module proxy and
# checksum database for --net proxy. ~/go/bin is not granted: it is on the
# search path (trust-handoff class), so `go install` cannot make or write
# it; set GOBIN to a directory of the workspace (--setenv GOBIN=$PWD/bin)
# or use `go build -o`.
cache ~/go/pkg
cache ~/.cache/go-build
allow-host proxy.golang.org
allow-host sum.golang.org
