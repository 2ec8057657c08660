#include "pipeline/params.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "pipeline/quote.hpp"

namespace vf {

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
std::string joined(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}
bool parseLong(const std::string& t, long& out) {
  if (t.empty()) return false;
  char* end = nullptr;
  out = std::strtol(t.c_str(), &end, 10);
  return end && *end == '\0';
}
}  // namespace

bool parseDouble(const std::string& t, double& out, bool& range, bool& tiny) {
  range = tiny = false;
  if (t.empty() || std::isspace(static_cast<unsigned char>(t[0])) ||
      t.find_first_of("xXpP") != std::string::npos)
    return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtod(t.c_str(), &end);
  if (!end || *end != '\0') return false;
  range = errno == ERANGE && std::isinf(out);
  tiny = errno == ERANGE && out == 0;  // a subnormal result is the number, rounded
  return range || std::isfinite(out);  // "nan" and "inf" are no numbers
}

std::string ParamSpec::typeName() const {
  switch (type) {
    case ParamType::Int:
      return "int";
    case ParamType::Float:
      return "float";
    case ParamType::Enum:
      return "enum";
    case ParamType::Bool:
      return "bool";
    case ParamType::Size:
      return "WxH";
    case ParamType::Text:
      return "text";
  }
  return "?";
}

std::string ParamSpec::rangeText() const {
  switch (type) {
    case ParamType::Int:
    case ParamType::Float:
      return std::string(minOpen ? "(" : "[") + num(min) + ", " + num(max) + (maxOpen ? ")" : "]");
    case ParamType::Enum:
      return joined(choices, "|");
    case ParamType::Bool:
      return "0|1";
    case ParamType::Size:
      return "WxH, each in [" + num(min) + ", " + num(max) + "]";
    case ParamType::Text:
      return "any text";
  }
  return "";
}

ParamSpec ParamSpec::asLive() const {
  ParamSpec p = *this;
  p.live = true;
  return p;
}
ParamSpec ParamSpec::asSchedule() const {
  ParamSpec p = *this;
  p.schedule = true;
  return p;
}
ParamSpec ParamSpec::withOpenMin() const {
  ParamSpec p = *this;
  p.minOpen = true;
  return p;
}
ParamSpec ParamSpec::withOpenMax() const {
  ParamSpec p = *this;
  p.maxOpen = true;
  return p;
}

namespace {
ParamSpec ranged(ParamType type, std::string name, std::string def, double min, double max,
                 std::string help) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = type;
  p.defaultValue = std::move(def);
  p.min = min;
  p.max = max;
  p.help = std::move(help);
  return p;
}
}  // namespace

ParamSpec intParam(std::string name, std::string def, double min, double max, std::string help) {
  return ranged(ParamType::Int, std::move(name), std::move(def), min, max, std::move(help));
}
ParamSpec floatParam(std::string name, std::string def, double min, double max, std::string help) {
  return ranged(ParamType::Float, std::move(name), std::move(def), min, max, std::move(help));
}
ParamSpec sizeParam(std::string name, std::string def, double min, double max, std::string help) {
  return ranged(ParamType::Size, std::move(name), std::move(def), min, max, std::move(help));
}
ParamSpec enumParam(std::string name, std::string def, std::vector<std::string> choices,
                    std::string help) {
  ParamSpec p = ranged(ParamType::Enum, std::move(name), std::move(def), 0, 0, std::move(help));
  p.choices = std::move(choices);
  return p;
}

ParamSpec textParam(std::string name, std::string def, std::string help) {
  return ranged(ParamType::Text, std::move(name), std::move(def), 0, 0, std::move(help));
}

Params::Params(const std::vector<ParamSpec>& specs) : specs_(&specs) {
  for (const auto& s : specs) values_[s.name] = parse(s, s.defaultValue);
}

bool Params::has(const std::string& name) const { return values_.count(name) != 0; }

const ParamSpec& Params::spec(const std::string& name) const {
  for (const auto& s : *specs_)
    if (s.name == name) return s;
  std::vector<std::string> names;
  for (const auto& s : *specs_) names.push_back(s.name);
  throw ParamError(name, "unknown parameter " + quote(name) +
                             (names.empty() ? "; this stage takes no parameters"
                                            : "; valid: " + joined(names, ", ")));
}

Params::Value Params::parse(const ParamSpec& s, const std::string& text) const {
  Value v;
  auto outOfRange = [&](const std::string& got) {
    return ParamError(s.name, s.name + " must be in " + s.rangeText() + ", got " + printable(got));
  };
  auto inRange = [&](double x) {
    return (s.minOpen ? x > s.min : x >= s.min) && (s.maxOpen ? x < s.max : x <= s.max);
  };
  switch (s.type) {
    case ParamType::Int: {
      long l = 0;
      if (!parseLong(text, l))
        throw ParamError(s.name, s.name + " must be an integer, got " + quote(text));
      if (!inRange(double(l))) throw outOfRange(text);
      v.number = double(l);
      v.text = std::to_string(l);
      break;
    }
    case ParamType::Float: {
      double d = 0;
      bool range = false, tiny = false;
      if (!parseDouble(text, d, range, tiny))
        throw ParamError(s.name, s.name + " must be a number, got " + quote(text));
      // Too close to 0 to be held: 0 where the range takes it, else out of the range.
      if (tiny && !inRange(0.0)) throw outOfRange(text);
      if (tiny)
        throw ParamError(s.name, s.name + ": " + quote(text) +
                                     " is too close to 0 to be held as a number; write 0 or a "
                                     "larger value");
      if (range || !inRange(d)) throw outOfRange(text);
      v.number = d;
      v.text = num(d);
      break;
    }
    case ParamType::Enum: {
      for (std::size_t i = 0; i < s.choices.size(); ++i)
        if (s.choices[i] == text) {
          v.number = double(i);
          v.text = text;
          return v;
        }
      throw ParamError(
          s.name, s.name + " must be one of " + joined(s.choices, ", ") + ", got " + quote(text));
    }
    case ParamType::Bool: {
      if (text == "1" || text == "true" || text == "on" || text == "yes")
        v.number = 1;
      else if (text == "0" || text == "false" || text == "off" || text == "no")
        v.number = 0;
      else
        throw ParamError(s.name, s.name + " must be 0 or 1, got " + quote(text));
      v.text = v.number ? "1" : "0";
      break;
    }
    case ParamType::Size: {
      const auto x = text.find('x');
      long w = 0, h = 0;
      if (x == std::string::npos || !parseLong(text.substr(0, x), w) ||
          !parseLong(text.substr(x + 1), h))
        throw ParamError(s.name, s.name + " must be WxH (e.g. 16x8), got " + quote(text));
      if (!inRange(double(w)) || !inRange(double(h))) throw outOfRange(text);
      v.size = {int(w), int(h)};
      v.text = std::to_string(w) + "x" + std::to_string(h);
      break;
    }
    case ParamType::Text:
      v.text = text;
      break;
  }
  return v;
}

void Params::set(const std::string& name, const std::string& text) {
  values_[name] = parse(spec(name), text);
}

bool Params::isDefault(const std::string& name) const {
  return values_.at(name).text == parse(spec(name), spec(name).defaultValue).text;
}

int Params::integer(const std::string& name) const {
  return static_cast<int>(std::lround(values_.at(name).number));
}
double Params::number(const std::string& name) const { return values_.at(name).number; }
const std::string& Params::text(const std::string& name) const { return values_.at(name).text; }
bool Params::flag(const std::string& name) const { return values_.at(name).number != 0; }
Size2 Params::size(const std::string& name) const { return values_.at(name).size; }

std::string Params::str(bool includeDefaults) const {
  std::string s;
  for (const auto& spec : *specs_) {
    if (!includeDefaults && isDefault(spec.name)) continue;
    s += (s.empty() ? "" : ":") + spec.name + "=" + values_.at(spec.name).text;
  }
  return s;
}

}  // namespace vf
