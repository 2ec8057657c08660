// The preview's own options, from the command line and from a config file: --window WxH and
// --exit-at-end ([preview] window, exit_at_end), and what a wrong value says.
#include <gtest/gtest.h>

#include <sstream>

#include "app/config.hpp"
#include "app/options.hpp"
#include "tests/support/cli_errors.hpp"
#include "tests/support/process.hpp"

using namespace vf;
using namespace vf::app;
using namespace vf::test;

TEST(PreviewOptions, WindowAndExitAtEndFromTheCommandLine) {
  const CommandLine cl = parseArgs({"-i", "in.mp4", "--window", "1280x720", "--exit-at-end"});
  EXPECT_EQ(cl.settings.window.value_or(""), "1280x720");
  EXPECT_EQ(cl.settings.exitAtEnd, std::optional<bool>(true));
  const WindowSize w = parseWindow(*cl.settings.window);
  EXPECT_EQ(w.width, 1280);
  EXPECT_EQ(w.height, 720);
  const CommandLine none = parseArgs({"-i", "in.mp4"});
  EXPECT_FALSE(none.settings.window);
  EXPECT_FALSE(none.settings.exitAtEnd);
}

TEST(PreviewOptions, AWrongWindowSizeSaysWhatIsExpected) {
  for (const char* bad : {"1280", "1280x", "x720", "0x0", "12x12", "20000x100", "1280*720", "-1x5",
                          "1280x720x3", " 1280x720"}) {
    const std::string e = usageError({"--window", bad});
    EXPECT_EQ(e.rfind("--window must be WIDTHxHEIGHT in pixels, from 160x120 to 16384x16384", 0),
              0u)
        << bad << ": " << e;
    EXPECT_NE(e.find(std::string("got '") + bad + "'"), std::string::npos) << e;
  }
  for (const char* good : {"160x120", "16384x16384", "640x480"})
    EXPECT_EQ(usageError({"--window", good}), "(no error)") << good;
}

TEST(PreviewOptions, WindowAndExitAtEndFromAConfigFile) {
  const Settings s = parseConfig("[preview]\nwindow = \"800x600\"\nexit_at_end = true\n", "t.toml");
  EXPECT_EQ(s.window.value_or(""), "800x600");
  EXPECT_EQ(s.exitAtEnd, std::optional<bool>(true));
  EXPECT_EQ(configError("[preview]\nwindow = \"big\"\n"),
            "t.toml:2:10: preview.window: must be WIDTHxHEIGHT in pixels, from 160x120 to "
            "16384x16384, e.g. 1280x720; got 'big'");
  EXPECT_EQ(configError("[preview]\nexit_at_end = 1\n"),
            "t.toml:2:15: preview.exit_at_end: must be true or false, got an integer");
  // The command line over the file.
  Settings cli;
  cli.window = "1024x768";
  cli.fillFrom(s);
  EXPECT_EQ(cli.window.value_or(""), "1024x768");
  EXPECT_EQ(cli.exitAtEnd, std::optional<bool>(true));
}
