# pip: ~/.cache/pip writable (made when missing); PyPI for --net proxy
#
# pip: its cache writable (made when missing, with ~/.cache, which is made
# but not granted), the Python package index for --net proxy. Install into a
# virtual environment in the working directory (writable by default).
cache ~/.cache/pip
allow-host pypi.org
allow-host files.pythonhosted.org
