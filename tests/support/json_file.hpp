#pragma once
// A JSON file the program wrote (--json reports, bench results), read whole.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

namespace vf::test {

// The file as one JSON document; one that does not parse fails the test (and reads as a
// discarded value, which any key lookup then fails on too).
inline nlohmann::json readJson(const std::filesystem::path& path) {
  std::ifstream in(path);
  nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << path << " is not one JSON document";
  return doc;
}

}  // namespace vf::test
