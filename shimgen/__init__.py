"""shimgen: prefix a C-ABI shim library from one config, and prove it on the compiled binary."""

# The one place the version is written: pyproject.toml (dynamic, scikit-build-core's regex provider)
# and the CMake package version file read this line (tests/unit/test_version.py).
__version__ = "0.1.0"
