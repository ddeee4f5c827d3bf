// The trace's JSON reader (see json.h).
#include "json.h"

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

namespace policies::json {
namespace {

class Parser {
 public:
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
    expect('{');
    if (eat('}')) return v;
    do {
      space();
      std::string key = string();
      expect(':');
      v.fields.emplace_back(std::move(key), value());
    } while (eat(','));
    expect('}');
    return v;
  }

  Value array() {
    Value v;
    v.type = Value::Type::array;
    expect('[');
    if (eat(']')) return v;
    do {
      v.items.push_back(value());
    } while (eat(','));
    expect(']');
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

  unsigned hex4() {
    if (p_ + 4 > t_.size()) fail("short \\u escape");
    unsigned cp = static_cast<unsigned>(std::stoul(t_.substr(p_, 4), nullptr, 16));
    p_ += 4;
    return cp;
  }

  std::string string() {
    if (p_ >= t_.size() || t_[p_] != '"') fail("expected a string");
    ++p_;
    std::string out;
    while (p_ < t_.size() && t_[p_] != '"') {
      char c = t_[p_++];
      if (c != '\\') {
        out += c;
        continue;
      }
      if (p_ >= t_.size()) fail("bad escape");
      char e = t_[p_++];
      switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && word("\\u")) cp = 0x10000 + ((cp - 0xD800) << 10) + (hex4() - 0xDC00);
          utf8(out, cp);
          break;
        }
        default: out += e;
      }
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return out;
  }

  Value number() {
    std::size_t start = p_;
    bool real = false;
    while (p_ < t_.size()) {
      char c = t_[p_];
      if (c == '.' || c == 'e' || c == 'E') {
        real = true;
      } else if (!(c == '-' || c == '+' || (c >= '0' && c <= '9'))) {
        break;
      }
      ++p_;
    }
    if (p_ == start) fail("unexpected character");
    std::string text = t_.substr(start, p_ - start);
    Value v;
    char* end = nullptr;
    errno = 0;
    if (real) {
      v.type = Value::Type::real;
      v.d = std::strtod(text.c_str(), &end);
    } else {
      v.type = Value::Type::integer;
      v.i = std::strtoll(text.c_str(), &end, 10);
    }
    if (errno != 0 || end != text.c_str() + text.size()) fail("bad number " + text);
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
