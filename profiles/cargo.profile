# cargo: ~/.cargo/registry and git writable (made when missing); crates.io for --net proxy
#
# cargo: its registry and git caches writable (made when missing, with
# ~/.cargo itself, which is made but not granted), crates.io for --net
# proxy. ~/.cargo/bin stays read-only with the trust-handoff class (cargo
# install puts programs there: use --root in the workspace), and
# ~/.cargo/credentials.toml hidden with the secrets class.
cache ~/.cargo/registry
cache ~/.cargo/git
allow-host crates.io
allow-host index.crates.io
allow-host static.crates.io
