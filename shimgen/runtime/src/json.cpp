// See json.h. A recursive-descent reader, strict JSON (RFC 8259) with a depth limit.
#include "json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>

namespace shimgen::rt::json {
namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  Reader(const char* data, size_t size) : p_(data), begin_(data), end_(data + size) {}

  bool document(Value* out, std::string* problem) {
    skip_space();
    if (!value(out, 0)) return report(problem);
    skip_space();
    if (p_ != end_) {
      error_ = "trailing characters after the document";
      return report(problem);
    }
    return true;
  }

 private:
  const char* p_;
  const char* begin_;
  const char* end_;
  std::string error_;

  bool report(std::string* problem) {
    if (problem != nullptr) *problem = error_ + " at byte " + std::to_string(p_ - begin_);
    return false;
  }
  bool fail(const char* message) {
    if (error_.empty()) error_ = message;
    return false;
  }
  void skip_space() {
    while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
  }
  bool literal(const char* word) {
    const size_t n = std::strlen(word);
    if (static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, word, n) != 0) return fail("invalid literal");
    p_ += n;
    return true;
  }

  bool value(Value* out, int depth) {
    if (depth > kMaxDepth) return fail("nesting deeper than 64 levels");
    if (p_ == end_) return fail("unexpected end of input");
    switch (*p_) {
      case '{': return object(out, depth);
      case '[': return array(out, depth);
      case '"': out->kind = Value::Kind::kString; return string(&out->text);
      case 't':
        out->kind = Value::Kind::kBool;
        out->boolean = true;
        return literal("true");
      case 'f':
        out->kind = Value::Kind::kBool;
        out->boolean = false;
        return literal("false");
      case 'n': out->kind = Value::Kind::kNull; return literal("null");
      // Python's json module writes non-finite floats as these (allow_nan, its default).
      case 'N':
        out->kind = Value::Kind::kDouble;
        out->number = std::nan("");
        return literal("NaN");
      case 'I':
        out->kind = Value::Kind::kDouble;
        out->number = HUGE_VAL;
        return literal("Infinity");
      default:
        if (end_ - p_ > 1 && p_[0] == '-' && p_[1] == 'I') {
          ++p_;
          out->kind = Value::Kind::kDouble;
          out->number = -HUGE_VAL;
          return literal("Infinity");
        }
        return number(out);
    }
  }

  bool object(Value* out, int depth) {
    out->kind = Value::Kind::kObject;
    ++p_;
    skip_space();
    if (p_ != end_ && *p_ == '}') {
      ++p_;
      return true;
    }
    while (true) {
      skip_space();
      if (p_ == end_ || *p_ != '"') return fail("expected a member name");
      std::string key;
      if (!string(&key)) return false;
      skip_space();
      if (p_ == end_ || *p_ != ':') return fail("expected ':'");
      ++p_;
      skip_space();
      out->members.emplace_back(std::move(key), Value{});
      if (!value(&out->members.back().second, depth + 1)) return false;
      skip_space();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      if (p_ != end_ && *p_ == '}') {
        ++p_;
        return true;
      }
      return fail("expected ',' or '}'");
    }
  }

  bool array(Value* out, int depth) {
    out->kind = Value::Kind::kArray;
    ++p_;
    skip_space();
    if (p_ != end_ && *p_ == ']') {
      ++p_;
      return true;
    }
    while (true) {
      skip_space();
      out->items.emplace_back();
      if (!value(&out->items.back(), depth + 1)) return false;
      skip_space();
      if (p_ != end_ && *p_ == ',') {
        ++p_;
        continue;
      }
      if (p_ != end_ && *p_ == ']') {
        ++p_;
        return true;
      }
      return fail("expected ',' or ']'");
    }
  }

  static void append_utf8(std::string* s, uint32_t c) {
    if (c < 0x80) {
      s->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      s->push_back(static_cast<char>(0xC0 | (c >> 6)));
      s->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      s->push_back(static_cast<char>(0xE0 | (c >> 12)));
      s->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      s->push_back(static_cast<char>(0xF0 | (c >> 18)));
      s->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      s->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }

  bool hex4(uint32_t* out) {
    if (end_ - p_ < 4) return fail("truncated \\u escape");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = *p_++;
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<uint32_t>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<uint32_t>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<uint32_t>(c - 'A' + 10);
      else return fail("bad hex digit in \\u escape");
    }
    *out = v;
    return true;
  }

  bool string(std::string* out) {
    ++p_;  // opening quote
    while (p_ != end_) {
      const char c = *p_++;
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (p_ == end_) break;
      const char e = *p_++;
      switch (e) {
        case '"':
        case '\\':
        case '/': out->push_back(e); break;
        case 'b': out->push_back('\b'); break;
        case 'f': out->push_back('\f'); break;
        case 'n': out->push_back('\n'); break;
        case 'r': out->push_back('\r'); break;
        case 't': out->push_back('\t'); break;
        case 'u': {
          uint32_t c1 = 0;
          if (!hex4(&c1)) return false;
          if (c1 >= 0xD800 && c1 <= 0xDBFF && end_ - p_ >= 6 && p_[0] == '\\' && p_[1] == 'u') {
            p_ += 2;
            uint32_t c2 = 0;
            if (!hex4(&c2)) return false;
            if (c2 < 0xDC00 || c2 > 0xDFFF) return fail("unpaired surrogate");
            c1 = 0x10000 + ((c1 - 0xD800) << 10) + (c2 - 0xDC00);
          }
          append_utf8(out, c1);
          break;
        }
        default: return fail("bad escape in a string");
      }
    }
    return fail("unterminated string");
  }

  bool number(Value* out) {
    const char* start = p_;
    if (p_ != end_ && *p_ == '-') ++p_;
    if (p_ == end_ || *p_ < '0' || *p_ > '9') return fail("unexpected character");
    bool integral = true;
    while (p_ != end_ &&
           ((*p_ >= '0' && *p_ <= '9') || *p_ == '.' || *p_ == 'e' || *p_ == 'E' || *p_ == '+' || *p_ == '-')) {
      if (*p_ == '.' || *p_ == 'e' || *p_ == 'E') integral = false;
      ++p_;
    }
    const std::string token(start, p_);
    char* stop = nullptr;
    errno = 0;
    if (integral) {
      const long long v = std::strtoll(token.c_str(), &stop, 10);
      if (errno == 0 && stop == token.c_str() + token.size()) {
        out->kind = Value::Kind::kInt;
        out->integer = v;
        out->number = static_cast<double>(v);
        return true;
      }
      errno = 0;  // out of int64 range: read it as a double
    }
    const double d = std::strtod(token.c_str(), &stop);
    if (stop != token.c_str() + token.size() || errno == ERANGE) return fail("bad number");
    out->kind = Value::Kind::kDouble;
    out->number = d;
    return true;
  }
};

}  // namespace

const Value* Value::find(const std::string& key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& member : members)
    if (member.first == key) return &member.second;
  return nullptr;
}

bool parse(const char* data, size_t size, Value* out, std::string* problem) {
  *out = Value{};
  return Reader(data, size).document(out, problem);
}

}  // namespace shimgen::rt::json
