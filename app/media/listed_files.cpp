#include "app/media/listed_files.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace vf::media {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMostRead = 4 << 20;  // a list's first bytes read; lists are small
constexpr int kMostDepth = 4;               // playlists of playlists followed

// The list's text (its first kMostRead bytes); "" when `path` is no list (a video is told by its
// first bytes, so only those are read).
std::string listText(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return "";
  std::ifstream f(path, std::ios::binary);
  std::string text(64, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  const std::size_t bom = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  if (text.compare(bom, 20, "ffconcat version 1.0") != 0 && text.compare(bom, 7, "#EXTM3U") != 0)
    return "";
  std::string rest(kMostRead - text.size(), '\0');
  f.read(rest.data(), static_cast<std::streamsize>(rest.size()));
  rest.resize(static_cast<std::size_t>(f.gcount()));
  return text.substr(bom) + rest;
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}

// One token as FFmpeg's concat demuxer reads it (av_get_token): '...' taken as it is, a
// backslash takes the next character as it is, unquoted white space ends it.
std::string tokenAt(const std::string& s, std::size_t i) {
  std::string t;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  for (; i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r'; ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      t += s[++i];
    } else if (s[i] == '\'') {
      const auto end = s.find('\'', i + 1);
      t += s.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
      if (end == std::string::npos) break;
      i = end;
    } else {
      t += s[i];
    }
  }
  return t;
}

// A name from the list as a local path: relative to the list's directory, `file:` dropped;
// "" for a URL of another scheme.
std::string localName(const std::string& listPath, std::string name) {
  if (name.rfind("file:", 0) == 0) name.erase(0, 5);
  const auto colon = name.find(':');
  if (name.empty() || (colon != std::string::npos && name.find("://") == colon)) return "";
  if (const auto q = name.find_first_of("?#"); q != std::string::npos) name.resize(q);
  const fs::path p(name);
  return p.is_absolute() ? name : (fs::path(listPath).parent_path() / p).string();
}

void listed(const std::string& path, int depth, std::vector<std::string>& out) {
  if (depth > kMostDepth) return;
  const std::string text = listText(path);
  std::istringstream lines(text);
  std::string line;
  if (text.rfind("ffconcat version 1.0", 0) == 0) {
    while (std::getline(lines, line)) {
      const std::string l = trimmed(line);
      if (l.rfind("file", 0) == 0 && l.size() > 4 && (l[4] == ' ' || l[4] == '\t'))
        if (std::string name = localName(path, tokenAt(l, 4)); !name.empty())
          out.push_back(std::move(name));
    }
    return;
  }
  if (text.rfind("#EXTM3U", 0) != 0) return;
  auto add = [&](const std::string& uri) {
    std::string name = localName(path, uri);
    if (name.empty()) return;
    out.push_back(name);
    listed(name, depth + 1, out);  // a variant's playlist lists its own segments
  };
  while (std::getline(lines, line)) {
    const std::string l = trimmed(line);
    if (l.empty()) continue;
    if (l[0] != '#') {
      add(l);
      continue;
    }
    // Tags that name a file: #EXT-X-MAP, #EXT-X-MEDIA, #EXT-X-KEY, ... (URI="...").
    if (const auto u = l.find("URI=\""); u != std::string::npos) {
      const auto end = l.find('"', u + 5);
      if (end != std::string::npos) add(l.substr(u + 5, end - u - 5));
    }
  }
}

}  // namespace

std::vector<std::string> filesListedBy(const std::string& path) {
  std::vector<std::string> out;
  listed(path, 0, out);
  return out;
}

}  // namespace vf::media
