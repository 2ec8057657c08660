#pragma once
// The config file's typed reading (app/config.cpp reads the keys): one table's keys, each checked
// for its type and value where it is written ("file:line:col: key: ..."), unknown keys refused at
// once; and the strings no value of vidfilter's can hold.
#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "app/options.hpp"
#include "pipeline/quote.hpp"

namespace vf::app::config {

inline std::string where(const std::string& file, const toml::source_region& src) {
  std::string s = printable(file);
  if (src.begin.line) s += ":" + std::to_string(src.begin.line);
  if (src.begin.column) s += ":" + std::to_string(src.begin.column);
  return s;
}

inline const char* typeName(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a number";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::array:
      return "an array";
    default:
      return "a date/time";
  }
}

inline std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Reads one table's keys, each checked for type and value.
class Reader {
 public:
  // `keys`: every key this table may hold; anything else is reported at once (a typo in a
  // config file should never be silently ignored, nor hidden behind a later error).
  // `elsewhere`: for a key another table holds, where it belongs (" ([engine] holds slots)").
  Reader(const std::string& file, const std::string& prefix, const toml::table& table,
         std::vector<std::string> keys,
         const std::function<std::string(const std::string&)>& elsewhere = {})
      : file_(file), prefix_(prefix), table_(table), known_(std::move(keys)) {
    for (auto&& [key, node] : table_) {
      const std::string k(key.str());
      if (std::find(known_.begin(), known_.end(), k) == known_.end())
        throw UsageError(where(file_, key.source()) + ": " + prefix_ + printable(k) +
                         ": unknown key" + (elsewhere ? elsewhere(k) : "") +
                         "; keys here are: " + joined(known_));
    }
  }

  [[noreturn]] void fail(const toml::node& n, const std::string& key,
                         const std::string& msg) const {
    throw UsageError(where(file_, n.source()) + ": " + prefix_ + key + ": " + msg);
  }

  const toml::node* find(const std::string& key) { return table_.get(key); }

  std::optional<std::string> string(const std::string& key, bool allowEmpty = false) {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail(*n, key, std::string("must be a string, got ") + typeName(*n));
    std::string v = n->as_string()->get();
    if (v.empty() && !allowEmpty) fail(*n, key, "must not be empty");
    return v;
  }

  std::optional<bool> boolean(const std::string& key) {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    if (!n->is_boolean()) fail(*n, key, std::string("must be true or false, got ") + typeName(*n));
    return n->as_boolean()->get();
  }

  std::optional<std::int64_t> integer(const std::string& key,
                                      std::string (*check)(std::int64_t) = nullptr) {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) fail(*n, key, std::string("must be an integer, got ") + typeName(*n));
    const std::int64_t v = n->as_integer()->get();
    if (check)
      if (auto why = check(v); !why.empty()) fail(*n, key, why);
    return v;
  }

  // A value written as a string or a number ("1:30" or 90 for a time; "4M" or 4000000 for a
  // bitrate), checked by `parse` (which explains what is wrong in `why`).
  template <class T>
  std::optional<T> parsed(const std::string& key,
                          std::optional<T> (*parse)(const std::string&, std::string*)) {
    const toml::node* n = find(key);
    if (!n) return std::nullopt;
    std::string text;
    if (n->is_string()) {
      text = n->as_string()->get();
    } else if (n->is_integer()) {
      text = std::to_string(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, n->as_floating_point()->get());
      text.assign(buf, r.ptr);
    } else {
      fail(*n, key, std::string("must be a string or a number, got ") + typeName(*n));
    }
    std::string why;
    auto v = parse(text, &why);
    if (!v) fail(*n, key, why);
    return v;
  }

  // A string checked by `check` ("" when fine).
  std::optional<std::string> checkedString(const std::string& key,
                                           std::string (*check)(const std::string&)) {
    auto v = string(key);
    if (v)
      if (auto why = check(*v); !why.empty()) fail(*find(key), key, why);
    return v;
  }

  const toml::table* subtable(const std::string& key) {
    const toml::node* n = find(key);
    if (!n) return nullptr;
    if (!n->is_table())
      fail(*n, key, std::string("must be a table ([") + key + "]), got " + typeName(*n));
    return n->as_table();
  }

 private:
  const std::string& file_;
  std::string prefix_;
  const toml::table& table_;
  std::vector<std::string> known_;
};

// A string holding a NUL character (\u0000, which TOML allows): no path, name or chain can hold
// one, and the C functions that take them would read only what comes before it.
inline void rejectNul(const toml::node& n, const std::string& file) {
  if (const auto* str = n.as_string(); str && str->get().find('\0') != std::string::npos)
    throw UsageError(where(file, n.source()) +
                     ": this string holds a NUL character (\\u0000), which no path, name or "
                     "chain can hold; remove it");
  if (const auto* t = n.as_table())
    for (auto&& [key, value] : *t) rejectNul(value, file);
  if (const auto* a = n.as_array())
    for (const auto& value : *a) rejectNul(value, file);
}

}  // namespace vf::app::config
