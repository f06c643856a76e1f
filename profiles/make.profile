# make: ~/.cache/ccache writable (made when missing)
#
# make (and compilers under it): ccache's cache writable (made when missing,
# with ~/.cache, which is made but not granted). A build needs nothing else
# beyond the default policy: the working directory is writable and TMPDIR
# private.
cache ~/.cache/ccache
