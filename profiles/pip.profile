# pip: ~/.cache/pip writable (made when missing); PyPI for --net proxy
#
# pip: its cache writable (made when missing, under an existing ~/.cache), the
# Python package index for --net proxy. Install into a virtual environment in
# the working directory (writable by default).
write-new ~/.cache/pip
allow-host pypi.org
allow-host files.pythonhosted.org
