// A small JSON reader for the files AOTInductor packages beside a model (the extern-kernel node
// list the proxy executor serves). The text is untrusted: nesting depth and length are bounded,
// every error is a message, nothing is evaluated.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace shimgen::rt::json {

struct Value {
  enum class Kind { kNull, kBool, kInt, kDouble, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  int64_t integer = 0;
  double number = 0.0;
  std::string text;
  std::vector<Value> items;                            // kArray
  std::vector<std::pair<std::string, Value>> members;  // kObject, in document order

  bool is(Kind k) const { return kind == k; }
  // The member named `key`, or nullptr (also when this is not an object).
  const Value* find(const std::string& key) const;
};

// Parses `size` bytes; on failure returns false and sets *problem (with the byte offset).
bool parse(const char* data, size_t size, Value* out, std::string* problem);

}  // namespace shimgen::rt::json
