#include "app/cli_error.hpp"

#include <algorithm>
#include <cctype>
#include <vector>

#include "pipeline/quote.hpp"

namespace vf::app {

namespace {

// The option a CLI11 message is about: the longest option name it contains whole.
const CLI::Option* optionIn(const CLI::App& app, const std::string& msg) {
  const CLI::Option* best = nullptr;
  std::size_t bestLen = 0;
  for (const CLI::Option* o : app.get_options()) {
    const std::string n = o->get_name();
    if (n.empty() || n.size() <= bestLen) continue;
    for (auto pos = msg.find(n); pos != std::string::npos; pos = msg.find(n, pos + 1)) {
      const std::size_t end = pos + n.size();
      const bool whole =
          end == msg.size() || !(std::isalnum(static_cast<unsigned char>(msg[end])) ||
                                 msg[end] == '-' || msg[end] == '_');
      if (whole) {
        best = o;
        bestLen = n.size();
        break;
      }
    }
  }
  return best;
}

std::string joinedValues(const std::vector<std::string>& values) {
  std::string s;
  for (const auto& v : values) s += (s.empty() ? "" : ", ") + quote(v, 60);
  return s;
}

// What the option takes, in words: "a whole number", "SRC"; "" when CLI11 only knows "TEXT".
std::string kindOf(const CLI::Option& o) {
  std::string t = o.get_type_name();
  std::string upper = t;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  if (upper == "INT" || upper == "UINT" || upper == "N") return "a whole number";
  if (upper == "FLOAT" || upper == "NUMBER") return "a number";
  if (upper == "TEXT") return "";
  return t;
}

std::size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// " (did you mean --frames?)" for a near miss of a long option name, else "".
std::string suggestion(const CLI::App& app, const std::string& given) {
  const std::string word = given.substr(0, given.find('='));
  std::string best;
  std::size_t bestDistance = 3;
  for (const CLI::Option* o : app.get_options()) {
    const std::string n = o->get_name();
    if (n.rfind("--", 0) != 0) continue;
    const std::size_t d = editDistance(word, n);
    if (d < bestDistance) best = n, bestDistance = d;
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

std::string extraArgument(const CLI::App& app, const CliWords& words) {
  std::vector<std::string> extras = app.remaining();
  // "--" ends the options: what follows it is the stray argument.
  if (!extras.empty() && extras.front() == "--") {
    extras.erase(extras.begin());
    if (extras.empty()) return "-- ends the options and nothing follows it; leave it out";
    return "unexpected argument " + quote(extras.front(), 60) + " after --" + words.positional +
           "; see " + words.help;
  }
  if (extras.empty()) return "unexpected arguments; see " + words.help;
  const std::string& first = extras.front();
  if (first.size() > 1 && first[0] == '-')
    return "unknown option " + printable(first, 60) + suggestion(app, first) + "; see " +
           words.help;
  return "unexpected argument " + quote(first, 60) + words.positional + "; see " + words.help;
}

}  // namespace

std::string describeParseError(const CLI::App& app, const CLI::ParseError& e,
                               const CliWords& words) {
  const std::string msg = e.what();
  const std::string see = "; see " + words.help;
  if (dynamic_cast<const CLI::ExtrasError*>(&e)) return extraArgument(app, words);
  const CLI::Option* o = optionIn(app, msg);
  if (!o) return printable(msg, 200) + see;
  const std::string n = o->get_name();  // the long name: "--input"
  const auto& values = o->results();
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    if (o->count() > 1)
      return n + " is given " + std::to_string(o->count()) + " times (" + joinedValues(values) +
             "); give it once";
    const std::string kind = kindOf(*o);
    return n + " needs a value" + (kind.empty() ? "" : " (" + kind + ")") + see;
  }
  if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    if (o->get_items_expected_min() == 0)
      return n + " is a switch and takes no value; write " + n + " alone" + see;
    const std::string kind = kindOf(*o);
    // Digits alone that do not convert: past the type's range, not "not a number".
    const std::string& last = values.empty() ? std::string() : values.back();
    const std::size_t digitsFrom = !last.empty() && (last[0] == '-' || last[0] == '+') ? 1 : 0;
    if (last.size() > digitsFrom &&
        last.find_first_not_of("0123456789", digitsFrom) == std::string::npos)
      return n + ": " + printable(last, 40) +
             (digitsFrom && last[0] == '-' ? " is too far below 0" : " is too large") + see;
    return n + ": " + (values.empty() ? std::string("the value") : joinedValues(values)) +
           " is not " + (kind.empty() ? "a valid value" : kind) + see;
  }
  if (dynamic_cast<const CLI::RequiredError*>(&e)) return n + " is required" + see;
  // A validator's message, which CLI11 begins with the option's name already.
  const std::string text = msg.rfind(n + ": ", 0) == 0 ? msg.substr(n.size() + 2) : msg;
  return n + ": " + printable(text, 200) + see;
}

}  // namespace vf::app
