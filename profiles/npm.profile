# npm: ~/.npm writable (made when missing); registry.npmjs.org for --net proxy
#
# npm: its cache writable (made when missing), the npm registry for --net proxy.
# ~/.npmrc (registry tokens) stays hidden with the secrets class; lift it alone
# with --waive secrets:~/.npmrc when a private registry needs it.
cache ~/.npm
allow-host registry.npmjs.org
