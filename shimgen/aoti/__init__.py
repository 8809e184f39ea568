"""AOTInductor models on the prefixed runtime: .pt2 packages, prefix-imports, recompile, the C-API binding, the runner."""
