#pragma once
// Whole numbers on the command line are decimal, as users write them: CLI11 would read a
// leading 0 as octal (010 is 8) and 0x as hexadecimal. Leading zeros are dropped before CLI11
// converts the value; another base, or a number of more than 18 digits, is refused with the
// option's own error.
#include <cctype>
#include <cmath>
#include <string>

#include <CLI/CLI.hpp>

#include "pipeline/params.hpp"

namespace vf::app {

inline std::string asDecimal(std::string s) {
  if (s.empty()) throw CLI::ValidationError("the value is empty; give a number");
  if (std::isspace(static_cast<unsigned char>(s.front())) ||
      std::isspace(static_cast<unsigned char>(s.back())))
    throw CLI::ValidationError("'" + s + "' is not a whole number (spaces around it)");
  std::size_t digits = s.empty() || (s[0] != '-' && s[0] != '+') ? 0 : 1;
  const std::size_t first = digits;
  for (; digits < s.size(); ++digits)
    if (!std::isdigit(static_cast<unsigned char>(s[digits]))) break;
  if (digits == first || digits != s.size()) {
    if (s.size() > first + 1 && s[first] == '0' &&
        std::isalpha(static_cast<unsigned char>(s[first + 1])))
      throw CLI::ValidationError("'" + s + "' is not a decimal whole number");
    return s;  // not a number: CLI11's conversion names it
  }
  std::size_t zeros = first;
  while (zeros + 1 < s.size() && s[zeros] == '0') ++zeros;
  // Past 18 digits a number may not fit in 64 bits, where CLI11 would saturate it silently.
  if (s.size() - zeros > 18) throw CLI::ValidationError("'" + s + "' is too large");
  return s.substr(0, first) + s.substr(zeros);
}

// Makes `opt` read its whole numbers as decimal.
inline CLI::Option* decimal(CLI::Option* opt) { return opt->transform(asDecimal); }

// A real number as users write it (23, 1.5, -0.25, 1e3): another base (0x10, 0x1p4, which the
// C library reads), spaces or anything after the number are refused, naming the value; "nan" and
// "inf" go on to the option's own range check.
inline std::string asDecimalReal(std::string s) {
  if (s.empty()) throw CLI::ValidationError("the value is empty; give a number");
  double d = 0;
  bool range = false, tiny = false;
  if (!parseDouble(s, d, range, tiny) && std::isfinite(d))
    throw CLI::ValidationError("'" + s + "' is not a decimal number");
  return s;
}

// Makes `opt` read its real numbers as decimal.
inline CLI::Option* decimalReal(CLI::Option* opt) { return opt->transform(asDecimalReal); }

}  // namespace vf::app
