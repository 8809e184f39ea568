"""Building a shim library: orchestration, the CMake driver, the build lock."""
