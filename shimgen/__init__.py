"""shimgen: prefix a C-ABI shim library from one config, and prove it on the compiled binary."""

__version__ = "0.1.0"
