#include "app/config.hpp"

#include <toml++/toml.h>
#include <algorithm>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include "pipeline/chain.hpp"
#include "pipeline/registry.hpp"

namespace vf::app {

namespace {

std::string where(const std::string& file, const toml::source_region& src) {
  std::string s = file;
  if (src.begin.line) s += ":" + std::to_string(src.begin.line);
  if (src.begin.column) s += ":" + std::to_string(src.begin.column);
  return s;
}

const char* typeName(const toml::node& n) {
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

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

// Reads one table's keys, each checked for type and value.
class Reader {
 public:
  // `keys`: every key this table may hold; anything else is reported at once (a typo in a
  // config file should never be silently ignored, nor hidden behind a later error).
  Reader(const std::string& file, const std::string& prefix, const toml::table& table,
         std::vector<std::string> keys)
      : file_(file), prefix_(prefix), table_(table), known_(std::move(keys)) {
    for (auto&& [key, node] : table_) {
      const std::string k(key.str());
      if (std::find(known_.begin(), known_.end(), k) == known_.end())
        throw UsageError(where(file_, key.source()) + ": " + prefix_ + k +
                         ": unknown key; keys here are: " + joined(known_));
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

// A parameter value as the chain syntax writes it.
std::string paramText(const std::string& file, const std::string& key, const toml::node& n) {
  if (auto s = n.as_string()) {
    const std::string v = s->get();
    if (v.find_first_of(",:=") != std::string::npos)
      throw UsageError(where(file, n.source()) + ": " + key + ": a value cannot contain , : or =");
    return v;
  }
  if (auto i = n.as_integer()) return std::to_string(i->get());
  if (auto f = n.as_floating_point()) {
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof buf, f->get());
    return std::string(buf, r.ptr);
  }
  if (auto b = n.as_boolean()) return b->get() ? "1" : "0";
  throw UsageError(where(file, n.source()) + ": " + key +
                   ": must be a number, a string or a boolean, got " + typeName(n));
}

// [[stage]] tables -> chain text, each stage and parameter checked where it is written.
std::string chainFromStages(const std::string& file, const toml::array& stages) {
  std::string text;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    const toml::node& node = *stages.get(i);
    const std::string label = "stage[" + std::to_string(i + 1) + "]";
    if (!node.is_table())
      throw UsageError(where(file, node.source()) + ": " + label +
                       ": must be a table ([[stage]] with name = \"...\")");
    const toml::table& t = *node.as_table();
    const toml::node* nameNode = t.get("name");
    if (!nameNode || !nameNode->is_string())
      throw UsageError(where(file, t.source()) + ": " + label +
                       ": needs name = \"<stage>\" (stages: " + joined(stageNames()) + ")");
    const std::string name = nameNode->as_string()->get();
    const StageInfo* info = findStage(name);
    if (!info)
      throw UsageError(where(file, nameNode->source()) + ": " + label + ".name: unknown stage '" +
                       name + "'; stages: " + joined(stageNames()));
    auto stage = info->create();
    std::string params;
    // In the order written (toml++ iterates keys sorted).
    std::vector<std::pair<const toml::key*, const toml::node*>> entries;
    for (auto&& [key, value] : t) entries.emplace_back(&key, &value);
    std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
      const auto& pa = a.first->source().begin;
      const auto& pb = b.first->source().begin;
      return pa.line != pb.line ? pa.line < pb.line : pa.column < pb.column;
    });
    for (const auto& [keyPtr, valuePtr] : entries) {
      const toml::key& key = *keyPtr;
      const toml::node& value = *valuePtr;
      const std::string k(key.str());
      if (k == "name") continue;
      const std::string qualified = label + "." + k;
      const std::string v = paramText(file, qualified, value);
      try {
        stage->params().set(k, v);
      } catch (const ParamError& e) {
        throw UsageError(where(file, key.source()) + ": " + qualified + ": " + name + ": " +
                         e.what());
      }
      params += (params.empty() ? "" : ":") + k + "=" + v;
    }
    try {
      stage->validate();
    } catch (const ParamError& e) {
      throw UsageError(where(file, t.source()) + ": " + label + ": " + name + ": " + e.what());
    }
    text += (text.empty() ? "" : ",") + name + (params.empty() ? "" : "=" + params);
  }
  if (text.empty())
    throw UsageError(file + ": [[stage]] is empty; add at least one [[stage]] with name = \"...\"");
  return text;
}

Settings readSettings(const toml::table& root, const std::string& file) {
  Settings s;
  Reader top(file, "", root,
             {"input", "output", "device", "chain", "stage", "frames", "codec", "log_level",
              "progress", "preview", "engine"});
  s.input = top.string("input");
  s.output = top.string("output");
  s.device = top.string("device", /*allowEmpty=*/true);
  s.codec = top.string("codec");
  if (s.codec)
    if (auto why = checkCodec(*s.codec); !why.empty()) top.fail(*root.get("codec"), "codec", why);
  s.logLevel = top.string("log_level");
  if (s.logLevel)
    if (auto why = checkLogLevel(*s.logLevel); !why.empty())
      top.fail(*root.get("log_level"), "log_level", why);
  s.frames = top.integer("frames", checkFrames);
  s.progress = top.boolean("progress");

  const toml::node* chainNode = top.find("chain");
  const toml::node* stageNode = top.find("stage");
  if (chainNode && stageNode)
    top.fail(*stageNode, "stage",
             "give the chain either as chain = \"...\" or as [[stage]] tables, not both");
  if (chainNode) {
    std::string text;
    if (chainNode->is_string()) {
      text = chainNode->as_string()->get();
    } else if (const toml::array* arr = chainNode->as_array();
               arr && (arr->empty() || arr->is_homogeneous(toml::node_type::string))) {
      for (const auto& item : *arr) text += (text.empty() ? "" : ",") + item.as_string()->get();
    } else {
      top.fail(*chainNode, "chain",
               std::string("must be a string such as \"blur,sobel\" or an array of strings, got ") +
                   typeName(*chainNode));
    }
    try {
      Chain::parse(text);
    } catch (const ChainError& e) {
      top.fail(*chainNode, "chain", e.what());
    }
    s.chain = text;
  }
  if (stageNode) {
    if (!stageNode->is_array())
      top.fail(*stageNode, "stage", "must be an array of tables: write each as [[stage]]");
    s.chain = chainFromStages(file, *stageNode->as_array());
  }

  if (const toml::table* pv = top.subtable("preview")) {
    Reader r(file, "preview.", *pv,
             {"enabled", "compare", "overlay", "snapshot_dir", "title", "window", "exit_at_end"});
    s.preview = r.boolean("enabled");
    s.compare = r.boolean("compare");
    s.overlay = r.boolean("overlay");
    s.snapshotDir = r.string("snapshot_dir");
    s.title = r.string("title");
    s.window = r.string("window");
    if (s.window)
      if (auto why = checkWindow(*s.window); !why.empty())
        r.fail(*pv->get("window"), "window", why);
    s.exitAtEnd = r.boolean("exit_at_end");
  }
  if (const toml::table* en = top.subtable("engine")) {
    Reader r(file, "engine.", *en, {"slots", "stats"});
    if (auto v = r.integer("slots", checkSlots)) s.slots = static_cast<int>(*v);
    s.statsPath = r.string("stats");
  }
  return s;
}

// toml++ 3.3 (Debian 12) reaches __builtin_unreachable() -- undefined behaviour -- when it asks
// whether some non-ASCII code points are whitespace (upstream marzer/tomlplusplus#190, #295;
// found here by fuzz_config). It asks only outside strings and comments, and in a """ string
// right after a backslash. Non-ASCII is never valid TOML outside strings and comments, so those
// places are checked here first, with an error of our own; text inside strings and comments is
// untouched. The first non-blank character after a line-ending backslash in a """ string is the
// one valid case refused (rare in a config file; the message says how to write it).
void checkTomlPlusPlusSafe(const std::string& text, const std::string& file) {
  enum class In { Code, Comment, Basic, Literal, MultiBasic, MultiLiteral } in = In::Code;
  std::size_t line = 1, col = 0;
  auto fail = [&](const std::string& what) {
    throw UsageError(file + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
  };
  auto nonAscii = [](char c) { return static_cast<unsigned char>(c) >= 0x80; };
  auto oneOf = [](const char* set, char c) { return c != '\0' && std::strchr(set, c); };
  auto run = [&](std::size_t i, char q) {  // length of the run of `q` starting at i
    std::size_t n = 0;
    while (i + n < text.size() && text[i + n] == q) ++n;
    return n;
  };
  std::size_t i = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  bool afterLineEndingBackslash = false;
  char prevSig = '\n';       // in code: the last character other than blanks
  bool keyContext = true;    // in code: a key may come here (not a value)
  std::string brackets;      // open [ and { in code
  bool inBareValue = false;  // in code: inside a value that is not a string, array or table
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      col = 0;
      if (in == In::Comment || in == In::Basic || in == In::Literal) in = In::Code;
      if (in == In::Code) {
        prevSig = '\n';
        inBareValue = false;
        keyContext = brackets.empty();  // a new key, unless inside a multi-line array
      }
      continue;
    }
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++col;  // columns count code points
    switch (in) {
      case In::Code: {
        if (nonAscii(c))
          fail(
              "a non-ASCII character outside a string or comment (not valid TOML; quote text "
              "as \"...\")");
        const bool blank = c == ' ' || c == '\t' || c == '\r';
        // A bare value (a number, a date, true, or junk) runs to the next blank, ] } , or #:
        // toml++ reads all of it, so a quote or bracket inside it (92'23, 1."x") opens nothing.
        if (inBareValue) {
          if (!blank && !oneOf("]},#", c)) break;
          inBareValue = false;
        }
        if (c == '#') in = In::Comment;
        if (c == '=') keyContext = false;
        if (c == '{' || c == '[') brackets.push_back(c);
        if (c == '{') keyContext = true;
        if ((c == '}' || c == ']') && !brackets.empty()) brackets.pop_back();
        if (c == ',') keyContext = !brackets.empty() && brackets.back() == '{';
        if (c == '"' || c == '\'') {
          // A quote opens a string only where a key or a value starts (after a dot: in a key).
          if (oneOf("=[{,\n", prevSig) || (prevSig == '.' && keyContext)) {
            const bool multi = run(i, c) >= 3;
            in = c == '"' ? (multi ? In::MultiBasic : In::Basic)
                          : (multi ? In::MultiLiteral : In::Literal);
            if (multi) {
              i += 2;
              col += 2;
            }
          }
        } else if (!keyContext && !blank && !oneOf("=[]{},#", c)) {
          inBareValue = true;
        }
        if (!blank) prevSig = c;
        break;
      }
      case In::Comment:
        break;
      case In::Basic:
        if (c == '\\') {
          ++i;  // an escape: the next character is not a quote
          ++col;
        } else if (c == '"') {
          in = In::Code;
        }
        break;
      case In::Literal:
        if (c == '\'') in = In::Code;
        break;
      case In::MultiBasic:
        if (afterLineEndingBackslash && c != ' ' && c != '\t' && c != '\r') {
          afterLineEndingBackslash = false;
          if (nonAscii(c))
            fail(
                "a non-ASCII character first after a line-ending backslash in a \"\"\" string is "
                "not supported by the TOML parser here (toml++ 3.3); write it as \\uXXXX");
        }
        if (c == '\\') {
          std::size_t j = i + 1;
          while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
          if (j < text.size() && nonAscii(text[j]))
            fail(
                "a backslash before a non-ASCII character in a \"\"\" string (not a valid "
                "escape; write \\\\ for a backslash)");
          if (j < text.size() && text[j] == '\r') ++j;
          if (j < text.size() && text[j] == '\n') {
            afterLineEndingBackslash = true;
          } else {
            ++i;  // an escape: the next character is not a quote
            ++col;
          }
        } else if (c == '"' && run(i, '"') >= 3) {
          // Up to two quotes may stand just inside the closing delimiter.
          const std::size_t n = std::min<std::size_t>(run(i, '"'), 5);
          i += n - 1;
          col += n - 1;
          in = In::Code;
        }
        break;
      case In::MultiLiteral:
        if (c == '\'' && run(i, '\'') >= 3) {
          const std::size_t n = std::min<std::size_t>(run(i, '\''), 5);
          i += n - 1;
          col += n - 1;
          in = In::Code;
        }
        break;
    }
  }
}

}  // namespace

Settings parseConfig(const std::string& text, const std::string& name) {
  checkTomlPlusPlusSafe(text, name);
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    std::string d(e.description());
    throw UsageError(where(name, e.source()) + ": " + d + " (not valid TOML)");
  }
  return readSettings(root, name);
}

Settings loadConfigFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw UsageError("config file '" + path + "' not found; see config/*.toml for examples");
  if (std::filesystem::is_directory(path, ec))
    throw UsageError("config file '" + path + "' is a directory; give a .toml file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError("cannot read config file '" + path + "' (permission denied?)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return parseConfig(ss.str(), path);
}

}  // namespace vf::app
