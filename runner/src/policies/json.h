// A small JSON reader for decision traces (docs/decision-traces.md): objects keep their key
// order, numbers without '.', 'e' or 'E' are 64-bit integers, others doubles read with
// strtod (correctly rounded, so Python's repr of a float reads back as the same double).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace policies::json {

struct Value {
  enum class Type { null, boolean, integer, real, string, array, object };
  Type type = Type::null;
  bool b = false;
  int64_t i = 0;
  double d = 0.0;
  std::string s;
  std::vector<Value> items;                           // array
  std::vector<std::pair<std::string, Value>> fields;  // object, in order

  bool is_null() const { return type == Type::null; }
  // the member named `key` (throws when absent or not an object); `find`: nullptr if absent
  const Value& operator[](const std::string& key) const;
  const Value* find(const std::string& key) const;
  const Value& operator[](std::size_t k) const;
  std::size_t size() const { return items.size(); }
  int64_t as_int() const;
  double as_double() const;  // an integer reads as its double (Python's float(int))
  bool as_bool() const;
  const std::string& as_string() const;
};

// the deepest nesting of objects and arrays parse() reads (a trace line needs 5)
constexpr int kMaxNesting = 64;

// Parses one JSON text; throws std::runtime_error naming the offset on bad input (json.cc
// lists what is refused).
Value parse(const std::string& text);

// `s` as a JSON string literal (quotes and escapes).
std::string quote(const std::string& s);

}  // namespace policies::json
