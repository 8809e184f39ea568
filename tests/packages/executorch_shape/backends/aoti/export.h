// The shape of ExecuTorch's backends/aoti/export.h: the project defines the export macro itself,
// unconditionally, and under the same file name as shimgen's default generated header.
#pragma once

#ifdef _WIN32
#ifdef EXPORT_AOTI_FUNCTIONS
#define AOTI_SHIM_EXPORT __declspec(dllexport)
#else
#define AOTI_SHIM_EXPORT __declspec(dllimport)
#endif
#else
#define AOTI_SHIM_EXPORT
#endif
