# Makes the package importable from a plain checkout: pytest puts this directory on sys.path
# because a conftest.py lives here (rootdir-level conftest, "prepend" import mode).
