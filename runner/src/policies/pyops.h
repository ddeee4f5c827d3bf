// Python's arithmetic where it differs from C++'s: `int / int` (true division, correctly
// rounded even past 2**53, where a C++ cast then divide would round twice), `int(x)`
// (truncation), and comparing an int with a float (exact in Python). Everything else the
// policies compute is IEEE double + - * / in Python's order, which C++ matches bit for bit
// with -ffp-contract=off.
#pragma once

#include <cmath>
#include <cstdint>

namespace policies::py {

constexpr int64_t kExact = int64_t{1} << 53;

inline int bit_length(unsigned __int128 v) {
  int n = 0;
  while (v != 0) {
    v >>= 1;
    ++n;
  }
  return n;
}

// Python's a / b for ints (b != 0): the exact quotient rounded once to the nearest double.
// As CPython's long_true_divide: both exact as doubles -> one IEEE division; otherwise a
// quotient of at least 55 significant bits with a sticky bit for the remainder, converted
// (rounding once) and scaled.
inline double truediv(int64_t a, int64_t b) {
  if (a > -kExact && a < kExact && b > -kExact && b < kExact)
    return static_cast<double>(a) / static_cast<double>(b);
  bool negative = (a < 0) != (b < 0);
  unsigned __int128 n = a < 0 ? static_cast<unsigned __int128>(-(a + 1)) + 1
                              : static_cast<unsigned __int128>(a);
  unsigned __int128 d = b < 0 ? static_cast<unsigned __int128>(-(b + 1)) + 1
                              : static_cast<unsigned __int128>(b);
  int shift = 55 - (bit_length(n) - bit_length(d));
  if (shift < 0) shift = 0;
  n <<= shift;
  unsigned __int128 q = n / d;
  if (n % d != 0) q |= 1;  // sticky: below the rounding position
  double r = std::ldexp(static_cast<double>(static_cast<uint64_t>(q >> 0)), -shift);
  return negative ? -r : r;
}

// int(x) for a finite double that fits: truncation toward zero.
inline int64_t trunc(double x) { return static_cast<int64_t>(x); }

// Python's `a > x` for an int and a float: exact, with no rounding of `a`.
inline bool int_gt(int64_t a, double x) {
  if (std::isnan(x)) return false;
  if (x >= 9223372036854775808.0) return false;
  if (x < -9223372036854775808.0) return true;
  return a > static_cast<int64_t>(std::floor(x));
}

}  // namespace policies::py
