"""The project: its config, the header scanner and the one shim matcher."""
