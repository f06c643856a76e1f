# go: ~/go and ~/.cache/go-build writable (made when missing); the Go module proxy for --net proxy
#
# go: the module cache (~/go, GOPATH's default) and the build cache writable
# (made when missing), the module proxy and checksum database for --net proxy.
write-new ~/go
write-new ~/.cache/go-build
allow-host proxy.golang.org
allow-host sum.golang.org
