"""Renderers (config -> {path: text}) and the writer that only touches what changed."""
