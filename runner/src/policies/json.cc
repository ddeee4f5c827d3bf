// The trace's JSON reader (see json.h): RFC 8259's grammar, as strict as Python's json
// module reading a trace (harness/replay/trace.py): nesting deeper than kMaxDepth, an escape
// other than \" \\ \/ \b \f \n \r \t \uXXXX (four hex digits), a raw control character
// in a string, a number outside the grammar (leading zeros, '+', a bare '.') or int64, NaN
// and a key given twice in one object are each one error naming the offset. A lone UTF-16
// surrogate (\ud800) is kept as its three-byte form, as Python keeps it in a str.
#include "json.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

namespace policies::json {
namespace {

class Parser {
 public:
  static constexpr int kMaxDepth = kMaxNesting;
  explicit Parser(const std::string& text) : t_(text) {}

  Value document() {
    Value v = value();
    space();
    if (p_ != t_.size()) fail("trailing characters");
    return v;
  }

 private:
  const std::string& t_;
  std::size_t p_ = 0;
  int depth_ = 0;

  // one more level of nesting (an object or array opened at p_)
  void deeper() {
    if (++depth_ > kMaxDepth) fail("nesting deeper than " + std::to_string(kMaxDepth));
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(p_));
  }
  void space() {
    while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t'))
      ++p_;
  }
  bool eat(char c) {
    space();
    if (p_ < t_.size() && t_[p_] == c) {
      ++p_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!eat(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    std::size_t n = std::char_traits<char>::length(w);
    if (t_.compare(p_, n, w) != 0) return false;
    p_ += n;
    return true;
  }

  Value value() {
    space();
    if (p_ >= t_.size()) fail("unexpected end");
    char c = t_[p_];
    Value v;
    if (c == '{') return object();
    if (c == '[') return array();
    if (c == '"') {
      v.type = Value::Type::string;
      v.s = string();
    } else if (word("true")) {
      v.type = Value::Type::boolean;
      v.b = true;
    } else if (word("false")) {
      v.type = Value::Type::boolean;
    } else if (word("null")) {
    } else {
      v = number();
    }
    return v;
  }

  Value object() {
    Value v;
    v.type = Value::Type::object;
    deeper();
    expect('{');
    if (!eat('}')) {
      do {
        space();
        std::size_t at = p_;
        std::string key = string();
        for (const auto& field : v.fields) {
          if (field.first == key) {
            p_ = at;
            fail("key " + quote(key) + " given twice");
          }
        }
        expect(':');
        v.fields.emplace_back(std::move(key), value());
      } while (eat(','));
      expect('}');
    }
    --depth_;
    return v;
  }

  Value array() {
    Value v;
    v.type = Value::Type::array;
    deeper();
    expect('[');
    if (!eat(']')) {
      do {
        v.items.push_back(value());
      } while (eat(','));
      expect(']');
    }
    --depth_;
    return v;
  }

  static void utf8(std::string& out, unsigned cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  // the four hex digits of a \u escape (p_ after the 'u')
  unsigned hex4() {
    unsigned cp = 0;
    for (int k = 0; k < 4; ++k, ++p_) {
      char c = p_ < t_.size() ? t_[p_] : '\0';
      int digit = c >= '0' && c <= '9'   ? c - '0'
                  : c >= 'a' && c <= 'f' ? c - 'a' + 10
                  : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                         : -1;
      if (digit < 0) fail("bad \\u escape (four hex digits wanted)");
      cp = cp * 16 + static_cast<unsigned>(digit);
    }
    return cp;
  }

  // a \u escape's code point; a high surrogate and the low one escaped after it are one
  unsigned code_point() {
    unsigned cp = hex4();
    if (cp < 0xD800 || cp >= 0xDC00) return cp;
    if (t_.compare(p_, 2, "\\u") != 0) return cp;
    std::size_t back = p_;
    p_ += 2;
    unsigned low = hex4();
    if (low >= 0xDC00 && low < 0xE000) return 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
    p_ = back;  // (a lone high surrogate; the next escape is read on its own)
    return cp;
  }

  void escape(std::string& out) {
    if (p_ >= t_.size()) fail("unterminated string");
    char e = t_[p_++];
    switch (e) {
      case '"': out += '"'; break;
      case '\\': out += '\\'; break;
      case '/': out += '/'; break;
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'u': utf8(out, code_point()); break;
      default: --p_; fail("bad escape");
    }
  }

  std::string string() {
    if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string");
    ++p_;
    std::string out;
    while (p_ < t_.size() && t_[p_] != '"') {
      char c = t_[p_];
      if (static_cast<unsigned char>(c) < 0x20) fail("raw control character in a string");
      ++p_;
      if (c == '\\') {
        escape(out);
      } else {
        out += c;
      }
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return out;
  }

  void digits() {
    std::size_t from = p_;
    while (p_ < t_.size() && t_[p_] >= '0' && t_[p_] <= '9') ++p_;
    if (p_ == from) fail("bad number (a digit wanted)");
  }

  // -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, as RFC 8259 and Python's json read it
  Value number() {
    std::size_t start = p_;
    if (p_ < t_.size() && t_[p_] == '-') ++p_;
    if (p_ >= t_.size() || t_[p_] < '0' || t_[p_] > '9') fail("unexpected character");
    if (t_[p_] == '0') {
      ++p_;
    } else {
      digits();
    }
    bool real = false;
    if (p_ < t_.size() && t_[p_] == '.') {
      ++p_;
      digits();
      real = true;
    }
    if (p_ < t_.size() && (t_[p_] == 'e' || t_[p_] == 'E')) {
      ++p_;
      if (p_ < t_.size() && (t_[p_] == '+' || t_[p_] == '-')) ++p_;
      digits();
      real = true;
    }
    std::string text = t_.substr(start, p_ - start);
    Value v;
    errno = 0;
    if (real) {
      v.type = Value::Type::real;
      v.d = std::strtod(text.c_str(), nullptr);
      if (errno != 0 && std::abs(v.d) > 1.0) {
        p_ = start;
        fail("number out of range " + text);
      }
    } else {
      v.type = Value::Type::integer;
      v.i = std::strtoll(text.c_str(), nullptr, 10);
      if (errno != 0) {
        p_ = start;
        fail("integer out of the 64-bit range " + text);
      }
    }
    return v;
  }
};

[[noreturn]] void wrong(const char* what) { throw std::runtime_error(std::string("JSON: not ") + what); }

}  // namespace

const Value* Value::find(const std::string& key) const {
  if (type != Type::object) wrong("an object");
  for (const auto& [k, v] : fields)
    if (k == key) return &v;
  return nullptr;
}

const Value& Value::operator[](const std::string& key) const {
  const Value* v = find(key);
  if (v == nullptr) throw std::runtime_error("JSON: no key \"" + key + "\"");
  return *v;
}

const Value& Value::operator[](std::size_t k) const {
  if (type != Type::array) wrong("an array");
  if (k >= items.size()) throw std::runtime_error("JSON: index out of range");
  return items[k];
}

int64_t Value::as_int() const {
  if (type != Type::integer) wrong("an integer");
  return i;
}

double Value::as_double() const {
  if (type == Type::integer) return static_cast<double>(i);
  if (type != Type::real) wrong("a number");
  return d;
}

bool Value::as_bool() const {
  if (type != Type::boolean) wrong("a boolean");
  return b;
}

const std::string& Value::as_string() const {
  if (type != Type::string) wrong("a string");
  return s;
}

Value parse(const std::string& text) { return Parser(text).document(); }

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      static const char* hex = "0123456789abcdef";
      out += "\\u00";
      out += hex[(c >> 4) & 0xF];
      out += hex[c & 0xF];
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace policies::json
