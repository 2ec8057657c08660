#include "app/media/listed_files.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace vf::media {

namespace fs = std::filesystem;

namespace {

constexpr std::size_t kMostRead = 4 << 20;  // a list's first bytes read; lists are small
constexpr int kMostDepth = 4;               // playlists of playlists followed

struct ListText {
  std::string text;  // after a byte order mark: a playlist's first kMostRead bytes, a concat
                     // list whole; "" for no list
  bool concat = false;
};

// The list `path` is, if any (a video is told by its first bytes, so only those are read);
// `concat`: read as a concat list whatever its first bytes (-f concat).
ListText listText(const std::string& path, bool concat) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return {};
  std::ifstream f(path, std::ios::binary);
  std::string text(1024, '\0');
  f.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<std::size_t>(f.gcount()));
  const std::size_t bom = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;  // a UTF-8 byte order mark
  concat = concat || text.compare(bom, 20, "ffconcat version 1.0") == 0;
  if (!concat && text.compare(bom, 7, "#EXTM3U") != 0) return {};
  // A concat list is read whole: an entry past what was read could name an output.
  std::string rest;
  if (concat) {
    rest.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  } else {
    rest.resize(kMostRead - text.size());
    f.read(rest.data(), static_cast<std::streamsize>(rest.size()));
    rest.resize(static_cast<std::size_t>(f.gcount()));
  }
  return {text.substr(bom) + rest, concat};
}

std::string trimmed(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

// One token as FFmpeg's concat demuxer reads it (av_get_token): '...' taken as it is, a
// backslash takes the next character as it is, unquoted white space ends it.
std::string tokenAt(const std::string& s, std::size_t i) {
  std::string t;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  for (; i < s.size() && s[i] != ' ' && s[i] != '\t'; ++i) {
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

// The local files a name from the list may open: relative to the list's directory; `file:NAME`
// as FFmpeg opens it (relative to the current directory) and as the list's; with `?` or `#`
// both as written (the file protocol opens it so) and cut there (a URL's query); none for a
// URL of another protocol (http:, data:, ...).
std::vector<std::string> localNames(const std::string& listPath, const std::string& name) {
  const fs::path dir = fs::path(listPath).parent_path();
  const auto near = [&](const std::string& n) {
    return fs::path(n).is_absolute() ? n : (dir / n).string();
  };
  if (name.empty()) return {};
  if (name.rfind("file:", 0) == 0) {
    const std::string n = name.substr(5);
    return n.empty() ? std::vector<std::string>{} : std::vector<std::string>{n, near(n)};
  }
  // FFmpeg's protocols that read the local files named inside the name: crypto:X (crypto+X),
  // async:X, cache:X, subfile,,start,A,end,B,:X, concat:A|B.
  for (const char* wrapper : {"crypto:", "crypto+", "async:", "cache:"})
    if (name.rfind(wrapper, 0) == 0) return localNames(listPath, name.substr(std::strlen(wrapper)));
  if (name.rfind("subfile,", 0) == 0) {
    const auto inner = name.find(",:");
    return inner == std::string::npos ? std::vector<std::string>{}
                                      : localNames(listPath, name.substr(inner + 2));
  }
  if (name.rfind("concat:", 0) == 0) {
    std::vector<std::string> all;
    for (std::size_t a = 7; a <= name.size();) {
      const std::size_t b = std::min(name.find('|', a), name.size());
      for (std::string& n : localNames(listPath, name.substr(a, b - a)))
        all.push_back(std::move(n));
      a = b + 1;
    }
    return all;
  }
  const auto colon = name.find(':');
  const auto scheme = name.substr(0, colon);
  if (colon != std::string::npos && colon >= 2 &&
      std::all_of(scheme.begin(), scheme.end(), [](unsigned char c) {
        return std::isalnum(c) || c == '+' || c == '-' || c == '.';
      }))
    return {};
  std::vector<std::string> names{near(name)};
  if (const auto q = name.find_first_of("?#"); q != std::string::npos && q > 0)
    names.push_back(near(name.substr(0, q)));
  return names;
}

// The list's lines, as FFmpeg's demuxers split them: at \n, \r or \0.
std::vector<std::string> linesOf(const std::string& text) {
  std::vector<std::string> lines;
  std::size_t a = 0;
  for (std::size_t i = 0; i <= text.size(); ++i)
    if (i == text.size() || text[i] == '\n' || text[i] == '\r' || text[i] == '\0') {
      if (i > a) lines.push_back(text.substr(a, i - a));
      a = i + 1;
    }
  return lines;
}

// The names one list gives (in order; a name's file may itself be a list).
std::vector<std::string> namesIn(const std::string& path, const std::string& text, bool concat) {
  std::vector<std::string> names;
  const auto add = [&](const std::string& n) {
    for (std::string& f : localNames(path, n)) names.push_back(std::move(f));
  };
  for (const std::string& line : linesOf(text)) {
    const std::string l = trimmed(line);
    if (concat) {
      if (l.rfind("file", 0) == 0 && l.size() > 4 && (l[4] == ' ' || l[4] == '\t'))
        add(tokenAt(l, 4));
      continue;
    }
    if (l.empty()) continue;
    if (l[0] != '#') {
      add(line.substr(0, line.find_last_not_of(" \t") + 1));  // HLS keeps leading blanks
      continue;
    }
    // Tags that name a file: #EXT-X-MAP, #EXT-X-MEDIA, #EXT-X-KEY, ... (URI="...").
    for (auto u = l.find("URI=\""); u != std::string::npos; u = l.find("URI=\"", u + 5)) {
      const auto end = l.find('"', u + 5);
      if (end == std::string::npos) break;
      add(l.substr(u + 5, end - u - 5));
    }
  }
  return names;
}

// Every file `path` names, and every file the lists among them name, each once.
void listed(const std::string& path, bool concat, int depth, std::set<std::string>& seen,
            std::vector<std::string>& out) {
  if (depth > kMostDepth) return;
  const ListText list = listText(path, concat);
  if (list.text.empty()) return;
  for (const std::string& name : namesIn(path, list.text, list.concat)) {
    std::error_code ec;
    const fs::path resolved = fs::weakly_canonical(name, ec);
    if (!seen.insert(ec ? name : resolved.string()).second) continue;
    out.push_back(name);
    // A list in a list (a variant's playlist) is read too.
    listed(name, false, depth + 1, seen, out);
  }
}

}  // namespace

std::vector<std::string> filesListedBy(const std::string& path, bool concat) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  listed(path, concat, 0, seen, out);
  return out;
}

}  // namespace vf::media
