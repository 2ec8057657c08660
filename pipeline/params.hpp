#pragma once
#include <map>
#include <string>
#include <vector>

#include "pipeline/error.hpp"

namespace vf {

enum class ParamType { Int, Float, Enum, Bool, Size, Text };

// A decimal number (no hexadecimal, no spaces before it) written whole, into `out` (what strtod
// read, also where it is false). `range`: past what a double holds (1e999); `tiny`: so close to 0
// that it reads as 0 (1e-400), never taken as 0. False for anything else, "nan" and "inf" too.
bool parseDouble(const std::string& t, double& out, bool& range, bool& tiny);

// A parameter declared once: parsing, validation, config files and --list-stages read this.
struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Float;
  std::string defaultValue;  // as a user would write it
  double min = 0, max = 0;   // for Int/Float (and each side of Size)
  bool minOpen = false;      // "(0, 50]" vs "[0, 50]"
  bool maxOpen = false;
  std::vector<std::string> choices;  // for Enum
  std::string help;
  // Live parameters are kernel arguments or small buffers: changing one (a preview key,
  // a slider) never rebuilds a program. Others are -D build options.
  bool live = false;
  // Schedule parameters choose how a stage runs (kernel, work-group shape, tiling), never what
  // it computes: every value gives the same bytes. The one way to override a stage's schedule,
  // from the chain text, a config file or Params::set.
  bool schedule = false;

  std::string rangeText() const;  // "(0, 50]", "replicate|reflect|...", "WxH" ...
  std::string typeName() const;

  ParamSpec asLive() const;
  ParamSpec asSchedule() const;
  ParamSpec withOpenMin() const;  // (min, max]
  ParamSpec withOpenMax() const;  // [min, max)
};

// A stage's table declares a parameter in one expression:
//   floatParam("sigma", "1.5", 0, 50, "standard deviation ...").withOpenMin().asLive()
ParamSpec intParam(std::string name, std::string def, double min, double max, std::string help);
ParamSpec floatParam(std::string name, std::string def, double min, double max, std::string help);
ParamSpec sizeParam(std::string name, std::string def, double min, double max, std::string help);
ParamSpec enumParam(std::string name, std::string def, std::vector<std::string> choices,
                    std::string help);
// Free text (a file name); the chain syntax cannot carry ',' or ':' in it.
ParamSpec textParam(std::string name, std::string def, std::string help);

struct Size2 {
  int w = 0, h = 0;
};

// The values of one stage's parameters, initialised from the defaults of its specs.
class Params {
 public:
  explicit Params(const std::vector<ParamSpec>& specs);

  // Parses and range-checks `text` for `name`; throws ParamError (unknown name lists the valid
  // ones).
  void set(const std::string& name, const std::string& text);
  const ParamSpec& spec(const std::string& name) const;  // throws ParamError for unknown names
  const std::vector<ParamSpec>& specs() const { return *specs_; }
  bool has(const std::string& name) const;
  bool isDefault(const std::string& name) const;

  int integer(const std::string& name) const;
  double number(const std::string& name) const;
  const std::string& text(const std::string& name) const;  // canonical text of any type
  bool flag(const std::string& name) const;
  Size2 size(const std::string& name) const;

  // "sigma=2:border=replicate" with every parameter that differs from its default.
  std::string str(bool includeDefaults = false) const;

 private:
  struct Value {
    std::string text;
    double number = 0;
    Size2 size;
  };
  Value parse(const ParamSpec& s, const std::string& text) const;

  const std::vector<ParamSpec>* specs_;
  std::map<std::string, Value> values_;
};

}  // namespace vf
