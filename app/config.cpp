#include "app/config.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cstring>

#include "app/camera_mode.hpp"
#include "app/config_reader.hpp"
#include "app/media/hwdec_mode.hpp"
#include "app/option_values.hpp"
#include "app/toml_guard.hpp"
#include "pipeline/chain.hpp"
#include "pipeline/quote.hpp"
#include "pipeline/registry.hpp"

namespace vf::app {

namespace {

using config::joined;
using config::Reader;
using config::typeName;
using config::where;

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

// What a parameter takes, as an error says it: "a number in [-16, 16]", "one of a|b".
std::string expectedValue(const ParamSpec& spec) {
  switch (spec.type) {
    case ParamType::Int:
    case ParamType::Float:
      return "a number in " + spec.rangeText();
    case ParamType::Enum:
      return "one of " + spec.rangeText();
    case ParamType::Size:
      return "a size " + spec.rangeText();
    default:
      return "a string";
  }
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
      throw UsageError(where(file, nameNode->source()) + ": " + label + ".name: unknown stage " +
                       quote(name) + "; stages: " + joined(stageNames()));
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
      const std::string qualified = label + "." + printable(k);
      if (value.is_boolean()) {  // true/false only where the parameter is a switch, never 1/0
        const ParamSpec* spec = nullptr;
        try {
          spec = &stage->params().spec(k);
        } catch (const ParamError&) {  // an unknown key: set() below says so
        }
        if (spec && spec->type != ParamType::Bool)
          throw UsageError(where(file, value.source()) + ": " + qualified + ": " + name + ": " + k +
                           " must be " + expectedValue(*spec) + ", got a boolean");
      }
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
    throw UsageError(printable(file) +
                     ": [[stage]] is empty; add at least one [[stage]] with name = \"...\"");
  return text;
}

// Parses a size the way the command line checks it.
std::optional<std::string> sizeValue(const std::string& text, std::string* why) {
  if (!checkSize(text, why)) return std::nullopt;
  return text;
}

// The media keys: trimming, rates, raw input, encoder, container, overwriting, decoding.
void readMedia(Reader& top, Settings& s) {
  s.overwrite = top.boolean("overwrite");
  s.audio = top.boolean("audio");
  s.quiet = top.boolean("quiet");
  s.start = top.parsed<double>("start", parseTime);
  s.to = top.parsed<double>("to", parseTime);
  s.duration = top.parsed<double>("duration", parseTime);
  s.rate = top.parsed<double>("rate", parseRate);
  s.bitrate = top.parsed<std::int64_t>("bitrate", parseBitrate);
  s.size = top.parsed<std::string>("size", sizeValue);
  s.format = top.checkedString("format", checkName);
  s.inputPixFmt = top.checkedString("input_pix_fmt", checkInputPixFmt);
  s.inputFormat = top.checkedString("input_format", checkName);
  s.pixFmt = top.checkedString("pix_fmt", checkName);
  s.preset = top.checkedString("preset", checkName);
  s.audioCodec = top.checkedString("audio_codec", checkName);
  s.hwdec = top.checkedString("hwdec", media::checkHwdecMode);
  if (auto v = top.integer("threads", checkThreads)) s.threads = static_cast<int>(*v);
  s.drop = top.checkedString("drop", checkDrop);
  s.cameraSize = top.parsed<std::string>("camera_size", sizeValue);
  s.cameraFps = top.parsed<double>("camera_fps", parseCameraFps);
  s.cameraFormat = top.parsed<std::string>("camera_format", parseCameraFormat);
  if (const toml::node* n = top.find("crf")) {
    if (!n->is_number()) top.fail(*n, "crf", std::string("must be a number, got ") + typeName(*n));
    const double v =
        n->is_integer() ? double(n->as_integer()->get()) : n->as_floating_point()->get();
    if (auto why = checkCrf(v); !why.empty()) top.fail(*n, "crf", why);
    s.crf = v;
  }
  if (s.duration && s.to)
    top.fail(*top.find("to"), "to", "duration and to both say where to stop; give one");
  if (s.crf && s.bitrate)
    top.fail(*top.find("bitrate"), "bitrate", "crf and bitrate contradict each other; give one");
}

// The keys of each table.
const std::vector<std::string> kTopKeys = {
    "input",         "output",    "device",   "chain",    "stage",       "frames",
    "codec",         "log_level", "progress", "preview",  "engine",      "overwrite",
    "format",        "start",     "to",       "duration", "rate",        "size",
    "input_pix_fmt", "pix_fmt",   "crf",      "preset",   "bitrate",     "audio_codec",
    "audio",         "hwdec",     "drop",     "quiet",    "camera_size", "camera_fps",
    "camera_format", "threads",   "inputs",   "jobs",     "json",        "input_format"};
const std::vector<std::string> kPreviewKeys = {"enabled", "compare", "overlay",    "snapshot_dir",
                                               "title",   "window",  "exit_at_end"};
const std::vector<std::string> kEngineKeys = {"slots", "stats", "fuse"};

// Where `key`, unknown in one table, belongs: " (the top level holds it)", " ([engine] holds
// it)"; "" when no table does.
std::string belongs(const std::string& key) {
  const auto holds = [&](const std::vector<std::string>& keys) {
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  if (holds(kEngineKeys)) return " ([engine] holds " + key + ")";
  if (holds(kPreviewKeys)) return " ([preview] holds " + key + ")";
  if (holds(kTopKeys)) return " (the top level holds " + key + ", before any [table])";
  return "";
}

Settings readSettings(const toml::table& root, const std::string& file) {
  Settings s;
  Reader top(file, "", root, kTopKeys, belongs);
  readMedia(top, s);
  s.input = top.string("input");
  s.inputsList = top.string("inputs");  // the file listing inputs, as --inputs
  if (s.input && s.inputsList)
    top.fail(*top.find("inputs"), "inputs",
             "give input or inputs (a file listing inputs), not both");
  if (auto v = top.integer("jobs", checkJobs)) s.jobs = static_cast<int>(*v);
  s.jsonPath = top.string("json");
  s.output = top.string("output");
  s.device = top.string("device");
  s.codec = top.string("codec");
  if (s.codec)
    if (auto why = checkCodec(*s.codec); !why.empty()) top.fail(*root.get("codec"), "codec", why);
  s.logLevel = top.string("log_level");
  if (s.logLevel)
    if (auto why = checkLogLevel(*s.logLevel); !why.empty())
      top.fail(*root.get("log_level"), "log_level", why);
  s.frames = top.integer("frames", checkFrames);
  s.progress = top.boolean("progress");
  // Values checked only when the run starts: where each was set, for the error then.
  for (const auto& [key, option] :
       std::initializer_list<std::pair<const char*, const char*>>{{"device", "--device"},
                                                                  {"codec", "--codec"},
                                                                  {"format", "-f"},
                                                                  {"pix_fmt", "--pix-fmt"},
                                                                  {"preset", "--preset"},
                                                                  {"crf", "--crf"},
                                                                  {"bitrate", "-b:v"},
                                                                  {"audio_codec", "-c:a"},
                                                                  {"input", "input"},
                                                                  {"inputs", "--inputs"},
                                                                  {"output", "output"},
                                                                  {"json", "--json"},
                                                                  {"start", "--ss"},
                                                                  {"to", "--to"},
                                                                  {"duration", "-t"}})
    if (const toml::node* n = root.get(key))
      s.origins[option] = where(file, n->source()) + ": " + key;

  const toml::node* chainNode = top.find("chain");
  const toml::node* stageNode = top.find("stage");
  if (chainNode && stageNode)
    top.fail(*stageNode, "stage",
             "give the chain either as chain = \"...\" or as [[stage]] tables, not both");
  if (chainNode) {
    std::string text;
    if (chainNode->is_string()) {
      text = chainNode->as_string()->get();
    } else if (const toml::array* arr = chainNode->as_array()) {
      for (std::size_t i = 0; i < arr->size(); ++i) {
        const toml::node& item = *arr->get(i);
        if (!item.is_string())
          top.fail(item, "chain",
                   "element " + std::to_string(i + 1) + " must be a stage name in quotes, got " +
                       typeName(item));
        text += (text.empty() ? "" : ",") + item.as_string()->get();
      }
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
    Reader r(file, "preview.", *pv, kPreviewKeys, belongs);
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
    Reader r(file, "engine.", *en, kEngineKeys, belongs);
    if (auto v = r.integer("slots", checkSlots)) s.slots = static_cast<int>(*v);
    s.statsPath = r.string("stats");
    if (const toml::node* n = en->get("stats"))
      s.origins["--stats"] = where(file, n->source()) + ": engine.stats";
    s.fuse = r.boolean("fuse");
  }
  return s;
}

}  // namespace

Settings parseConfig(const std::string& text, const std::string& name) {
  checkTomlPlusPlusSafe(text, name);
  toml::table root;
  try {
    root = toml::parse(text, name);
  } catch (const toml::parse_error& e) {
    std::string d(e.description());
    throw UsageError(where(name, e.source()) + ": " + printable(d, 400) + " (not valid TOML)");
  }
  config::rejectNul(root, name);
  return readSettings(root, name);
}

}  // namespace vf::app
