# cargo: ~/.cargo/registry and git writable (made when missing); crates.io for --net proxy
#
# cargo: its registry and git caches writable (made when missing, under an
# existing ~/.cargo), crates.io for --net proxy. ~/.cargo/credentials.toml
# stays hidden with the secrets class.
write-new ~/.cargo/registry
write-new ~/.cargo/git
allow-host crates.io
allow-host index.crates.io
allow-host static.crates.io
