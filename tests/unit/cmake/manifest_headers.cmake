# cmake -P unit script: _shimgen_manifest_headers() turns the manifest's declared_in entries into
# the header files that rerun configure. Run with -DCMAKE_DIR=<cmake/> -DWORK=<scratch dir>.
include("${CMAKE_DIR}/shimgenGenerate.cmake")
file(WRITE "${WORK}/manifest.json" [=[
{"schema": "shimgen-manifest/1", "shims": [
  {"name": "aoti_torch_a", "declared_in": "include/x.h:3"},
  {"name": "aoti_torch_b", "declared_in": null},
  {"name": "aoti_torch_c", "declared_in": "include/x.h:9"},
  {"name": "aoti_torch_d", "declared_in": "other/y z.h:1"}
]}
]=])
_shimgen_manifest_headers(headers "${WORK}/manifest.json" "${WORK}/shimgen.toml")
set(expected "${WORK}/include/x.h;${WORK}/other/y z.h")
if(NOT headers STREQUAL expected)
  message(FATAL_ERROR "headers: '${headers}', expected '${expected}'")
endif()
file(WRITE "${WORK}/empty.json" [=[{"schema": "shimgen-manifest/1", "shims": []}]=])
_shimgen_manifest_headers(headers "${WORK}/empty.json" "${WORK}/shimgen.toml")
if(NOT headers STREQUAL "")
  message(FATAL_ERROR "empty manifest gave '${headers}'")
endif()
message(STATUS "ok: manifest headers")
