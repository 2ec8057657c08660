// Pixel formats between FFmpeg's frames and the engine's slots, against ffmpeg's own conversion
// of the same input (the reference): palette images, full-range frames of more than 8 bits, and
// gray written from a colour chain.
#include <gtest/gtest.h>

#include <opencv2/imgproc.hpp>

#include "app/media/media_source.hpp"
#include "tests/support/media.hpp"
#include "tests/support/process.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/test_support.hpp"

using namespace vf;
using namespace vf::test;

namespace {

// Every frame `path` gives through the media source, each into a poisoned host buffer.
std::vector<cv::Mat> sourceFrames(const std::string& path, bool grayLuma,
                                  FrameDesc* first = nullptr) {
  app::SourceSpec spec;
  spec.kind = app::SourceKind::File;
  spec.text = path;
  app::InputOptions o;
  o.grayLuma = grayLuma;
  media::MediaSource src(spec, o);
  if (first) *first = src.firstFrameDesc();
  std::vector<cv::Mat> frames;
  for (;;) {
    cv::Mat m;
    FrameTime t;
    const bool ok = src.next(
        [&](const FrameDesc& d) {
          m = test::makeMat(d);
          m.setTo(cv::Scalar::all(77));
          return test::viewOf(m);
        },
        t);
    if (!ok) return frames;
    frames.push_back(m);
  }
}

}  // namespace

TEST(PixelFormats, PaletteImagesComeOutInColour) {
  // An 8-bit PNG (pal8: one index per pixel, colour and alpha in the palette) is a colour
  // picture: its frames are the palette's colours, as ffmpeg reads them, to the last column.
  TempDir dir("pix_pal8");
  for (const char* size : {"161x97", "7x3"}) {
    SCOPED_TRACE(size);
    const std::string in = dir / (std::string(size) + ".png");
    ffmpeg("-f lavfi -i testsrc=size=" + std::string(size) + " -frames:v 1 -pix_fmt pal8 " + q(in));
    ASSERT_EQ(probeValue(in, "-select_streams v:0", "stream=pix_fmt"), "pal8");
    const auto want = ffmpegFrames(in, "bgr24");
    FrameDesc desc;
    const auto got = sourceFrames(in, false, &desc);
    EXPECT_EQ(desc.format, PixelFormat::BGRA8);
    ASSERT_EQ(got.size(), 1u);
    ASSERT_EQ(want.size(), 1u);
    cv::Mat bgr;
    cv::cvtColor(got[0], bgr, cv::COLOR_BGRA2BGR);
    EXPECT_EQ(test::maxAbsDiff(bgr, want[0]), 0);
    // The gray chain's input: the palette's colours made gray, as ffmpeg makes them.
    const auto gray = sourceFrames(in, true, &desc);
    ASSERT_EQ(gray.size(), 1u);
    cv::Mat g;
    cv::cvtColor(gray[0], g, cv::COLOR_BGRA2GRAY);
    EXPECT_LE(test::maxAbsDiff(g, ffmpegFrames(in, "gray")[0]), 2);
  }
}

TEST(PixelFormats, LumaOfEveryDepthAndRangeIsFfmpegsGray) {
  // The gray chain takes the luma as full-range gray: a full-range (pc) frame as is, a
  // limited-range one stretched, at 8 bits (read directly) and at 10 (through swscale), as
  // ffmpeg's gray conversion of the same frames.
  TempDir dir("pix_luma");
  for (const char* fmt : {"yuv420p", "yuv420p10le", "yuv422p10le"}) {
    for (const char* range : {"tv", "pc"}) {
      SCOPED_TRACE(std::string(fmt) + " " + range);
      const std::string in = dir / (std::string(fmt) + range + ".mkv");
      ffmpeg("-f lavfi -i testsrc2=size=162x98:rate=25 -frames:v 3 -c:v ffv1 -pix_fmt " +
             std::string(fmt) + " -color_range " + range + " " + q(in));
      ASSERT_EQ(probeValue(in, "-select_streams v:0", "stream=color_range"), range);
      const auto want = ffmpegFrames(in, "gray");
      FrameDesc desc;
      const auto got = sourceFrames(in, true, &desc);
      EXPECT_EQ(desc.format, PixelFormat::Gray8);
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(test::maxAbsDiff(got[i], want[i]), 1) << i;
    }
  }
}

TEST(PixelFormats, GrayOutputIsFullRangeFromEveryChain) {
  // Gray written from a colour chain is the full-range gray ffmpeg writes (0..255, not
  // 16..235), and the file says so (pc) even when the input was limited range, as a gray
  // chain's output.
  TempDir dir("pix_grayout");
  for (const char* range : {"-color_range unknown", "-color_range tv"}) {
    SCOPED_TRACE(range);
    const std::string in = dir / "in.mkv";
    ffmpeg("-f lavfi -i testsrc=size=161x97:rate=25 -frames:v 3 -c:v ffv1 -pix_fmt yuv444p " +
           std::string(range) + " " + q(in));
    const auto want = ffmpegFrames(in, "gray");
    for (const char* chain : {"brightness=gain=1", "gray"}) {
      SCOPED_TRACE(chain);
      const std::string out = dir / "out.mkv";
      const auto r = runVidfilter(
          {"-y", "-i", in, "--chain", chain, "-c:v", "ffv1", "--pix-fmt", "gray", "-o", out});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=color_range"), "pc");
      const auto got = ffmpegFrames(out, "gray");
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(test::maxAbsDiff(got[i], want[i]), 2) << i;
    }
  }
}

TEST(PixelFormats, ColourWrittenAsYuvIsTheInputsColour) {
  // YUV written from RGB, full-range and limited-range inputs, decoded by ffmpeg as its tags say:
  // at 4:4:4 the input's colours (within the rounding of 8-bit YUV); at 4:2:0 what ffmpeg's own
  // conversion of the input to 4:2:0 gives (the chroma's subsampling is the scaler's choice: on
  // average within 2 levels). The tags name the matrix and range the conversion used: RGB's GBR
  // matrix is no YUV's, full range stays full.
  TempDir dir("pix_colour");
  struct Case {
    const char* name;
    const char* args;
    const char* space;
    const char* range;
  };
  for (const Case& c : {Case{"rgb", "-pix_fmt rgb24", "smpte170m", "tv"},
                        Case{"pc", "-pix_fmt yuv444p -color_range pc", "unknown", "pc"},
                        Case{"tv", "-pix_fmt yuv444p -color_range tv", "unknown", "tv"}}) {
    SCOPED_TRACE(c.name);
    const std::string in = dir / (std::string(c.name) + ".mkv");
    // Saturated colours, smoothed so that 4:2:0 keeps most of them.
    ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=25,gblur=sigma=6 -frames:v 3 -c:v ffv1 " +
           std::string(c.args) + " " + q(in));
    for (const char* pix : {"yuv444p", "yuv420p"}) {
      SCOPED_TRACE(pix);
      const bool sub = std::string(pix) == "yuv420p";
      const std::string ref = dir / "ref.mkv";
      if (sub) ffmpeg("-i " + q(in) + " -c:v ffv1 -pix_fmt yuv420p " + q(ref));
      const auto want = ffmpegFrames(sub ? ref : in, "bgr24");
      const std::string out = dir / "out.mkv";
      const auto r = runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-c:v", "ffv1",
                                   "--pix-fmt", pix, "-o", out});
      ASSERT_EQ(r.status, 0) << r.err;
      EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=color_space"), c.space);
      EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=color_range"), c.range);
      const auto got = ffmpegFrames(out, "bgr24");
      ASSERT_EQ(got.size(), want.size());
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double mean = cv::norm(got[i], want[i], cv::NORM_L1) / double(got[i].total() * 3);
        EXPECT_LE(mean, sub ? 2.0 : 1.0) << i;
        if (!sub) {
          EXPECT_LE(test::maxAbsDiff(got[i], want[i]), 4) << i;
        }
      }
    }
  }
}

TEST(PixelFormats, FullRangeIsKeptOnlyWhereTheOutputSaysSo) {
  // A full-range input: H.264 (its bitstream) and Matroska (its colour element) say full range
  // and keep it; MPEG-4 Part 2 in .avi and MPEG-2 in .ts cannot, so the frames are written in
  // limited range (decoders take them so): decoded by ffmpeg, the colours are the input's.
  TempDir dir("pix_full_range");
  const std::string in = dir / "in.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=96x64:rate=25,gblur=sigma=6 -frames:v 3 -c:v ffv1 -pix_fmt "
      "yuv444p -color_range pc " +
      q(in));
  const auto want = ffmpegFrames(in, "bgr24");
  for (const auto& [name, range] : std::vector<std::pair<std::string, std::string>>{
           {"out.avi", "tv"}, {"out.ts", "tv"}, {"out.mp4", "pc"}, {"out.mkv", "pc"}}) {
    SCOPED_TRACE(name);
    const std::string out = dir / name;
    const auto r = runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-b:v", "20M",
                                 "--pix-fmt", "yuv420p", "-o", out});
    ASSERT_EQ(r.status, 0) << r.err;
    // The first line: ffprobe lists a .ts file's stream again under its program.
    std::string tag = probeValue(out, "-select_streams v:0", "stream=color_range");
    tag = tag.substr(0, tag.find('\n'));
    EXPECT_TRUE(tag == range || (range == "tv" && tag == "unknown")) << tag;
    const auto got = ffmpegFrames(out, "bgr24");
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i)
      EXPECT_LE(cv::norm(got[i], want[i], cv::NORM_L1) / double(got[i].total() * 3), 3.0) << i;
  }
}

TEST(PixelFormats, ImageSequencesWrittenAsYuvAreTaggedAsRgbSources) {
  // PNG frames are RGB: as an RGB video's, their YUV is BT.601 in limited range, and says so.
  TempDir dir("pix_png_tags");
  ffmpeg("-f lavfi -i testsrc2=size=96x64:rate=10,gblur=sigma=6 -frames:v 3 " +
         q(dir / "p_%03d.png"));
  const std::string out = dir / "out.mkv";
  const auto r = runVidfilter({"-y", "-i", dir / "p_%03d.png", "--chain", "brightness=gain=1",
                               "-c:v", "ffv1", "--pix-fmt", "yuv444p", "-o", out});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=color_space"), "smpte170m");
  EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=color_range"), "tv");
  const auto want = ffmpegFrames(dir / "p_001.png", "bgr24");
  const auto got = ffmpegFrames(out, "bgr24");
  ASSERT_EQ(got.size(), 3u);
  EXPECT_LE(test::maxAbsDiff(got[0], want[0]), 4);
}

// Uncompressed outputs keep the input's chroma layout as ffmpeg's do: a raw .yuv of a yuv420p
// input is yuv420p (a frame of w*h*3/2 bytes, not BGR), a y4m of 4:4:4 or 4:2:2 says C444 or
// C422 and holds the input's colours; gray chains stay gray; RGB sources give BGR raw video.
TEST(PixelFormats, UncompressedOutputsKeepTheInputsLayout) {
  TempDir dir("pix_uncompressed");
  for (const char* pix : {"yuv420p", "yuv422p", "yuv444p"}) {
    SCOPED_TRACE(pix);
    const std::string in = dir / (std::string(pix) + ".mkv");
    ffmpeg("-i " + q(kVideo) + " -frames:v 4 -vf scale=161:97 -c:v ffv1 -pix_fmt " +
           std::string(pix) + " " + q(in));
    const std::string y4m = dir / "o.y4m", raw = dir / "o.yuv";
    ASSERT_EQ(runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-o", y4m}).status, 0);
    EXPECT_EQ(probeValue(y4m, "-select_streams v:0", "stream=pix_fmt"), pix);
    // Real frames through the chain's BGR and back, on average within rounding (a few pixels
    // whose YUV lies outside RGB's cube come back clipped; ColourWrittenAsYuvIsTheInputsColour
    // holds the colours themselves to the pixel).
    const auto wantY = ffmpegFrames(in, "gray"), gotY = ffmpegFrames(y4m, "gray");
    const auto want = ffmpegFrames(in, "bgr24"), got = ffmpegFrames(y4m, "bgr24");
    ASSERT_EQ(got.size(), want.size());
    ASSERT_EQ(gotY.size(), wantY.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_LE(cv::norm(gotY[i], wantY[i], cv::NORM_L1) / double(gotY[i].total()), 1.0) << i;
      EXPECT_LE(cv::norm(got[i], want[i], cv::NORM_L1) / double(got[i].total() * 3), 2.0) << i;
    }
    ASSERT_EQ(runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-o", raw}).status, 0);
    const std::uintmax_t chroma = std::string(pix) == "yuv420p"   ? 2 * 81 * 49
                                  : std::string(pix) == "yuv422p" ? 2 * 81 * 97
                                                                  : 2 * 161 * 97;
    EXPECT_EQ(std::filesystem::file_size(raw), 4 * (161 * 97 + chroma));
  }
  // Raw frames inside a container that tags them (.avi, .mov) stay BGR, which it can say.
  const std::string avi = dir / "raw.avi", in444 = dir / "yuv444p.mkv";
  ASSERT_EQ(runVidfilter({"-y", "-i", in444, "--chain", "brightness=gain=1", "--codec", "rawvideo",
                          "-o", avi})
                .status,
            0);
  EXPECT_EQ(probeValue(avi, "-select_streams v:0", "stream=pix_fmt"), "bgr24");
  const auto aviFrames = ffmpegFrames(avi, "bgr24"), wantAvi = ffmpegFrames(in444, "bgr24");
  ASSERT_EQ(aviFrames.size(), wantAvi.size());
  EXPECT_LE(cv::norm(aviFrames[0], wantAvi[0], cv::NORM_L1) / double(aviFrames[0].total() * 3),
            1.0);
  const std::string in = dir / "yuv420p.mkv", raw = dir / "g.yuv";
  ASSERT_EQ(runVidfilter({"-y", "-i", in, "--chain", "gray", "-o", raw}).status, 0);
  EXPECT_EQ(std::filesystem::file_size(raw), 4u * 161 * 97);
  const std::string png = dir / "in_%02d.png", rgbRaw = dir / "rgb.raw";
  ffmpeg("-f lavfi -i testsrc=size=161x97:rate=25 -frames:v 2 " + q(png));
  ASSERT_EQ(runVidfilter(
                {"-y", "-i", png, "--chain", "brightness=gain=1", "-f", "rawvideo", "-o", rgbRaw})
                .status,
            0);
  EXPECT_EQ(std::filesystem::file_size(rgbRaw), 2u * 161 * 97 * 3);
}

// Interlaced input stays tagged with its field order (containers and y4m), as ffmpeg keeps it.
TEST(PixelFormats, InterlacedInputKeepsItsFieldOrder) {
  TempDir dir("pix_interlaced");
  const std::string in = dir / "il.mkv";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 4 -vf setfield=tff -c:v libx264 "
      "-flags +ildct+ilme -x264opts tff=1 " +
      q(in));
  ASSERT_EQ(probeValue(in, "-select_streams v:0", "stream=field_order"), "tb");
  for (const char* name : {"o.mkv", "o.y4m"}) {
    SCOPED_TRACE(name);
    const std::string out = dir / name;
    ASSERT_EQ(runVidfilter({"-y", "-i", in, "--chain", "brightness=gain=1", "-o", out}).status, 0);
    EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=field_order"),
              std::string(name) == "o.y4m" ? "tt" : "tb");
  }
  const std::string prog = dir / "p.mkv", out = dir / "p_out.mkv";
  ffmpeg("-f lavfi -i testsrc2=size=160x120:rate=25 -frames:v 2 -c:v libx264 " + q(prog));
  ASSERT_EQ(runVidfilter({"-y", "-i", prog, "--chain", "gray", "-o", out}).status, 0);
  EXPECT_EQ(probeValue(out, "-select_streams v:0", "stream=field_order"), "progressive");
}

// Images of one size in different pixel formats (gray and colour PNGs, a JPEG): a chain that
// begins with gray makes the same frame of each, so nothing is said; another chain is told the
// pixel format changed, not the size.
TEST(PixelFormats, AChangeOfPixelFormatIsNamedOnlyWhereItMatters) {
  TempDir dir("pixfmt_change");
  ffmpeg("-f lavfi -i testsrc2=size=64x48 -frames:v 1 " + q(dir / "s_001.png"));
  ffmpeg("-f lavfi -i testsrc2=size=64x48 -frames:v 1 -pix_fmt gray " + q(dir / "s_002.png"));
  ffmpeg("-f lavfi -i testsrc2=size=64x48 -frames:v 1 " + q(dir / "s_003.jpg"));
  const std::string glob = dir / "s_*";
  const auto gray = runVidfilter({"-i", glob, "--chain", "gray", "-o", dir / "g_%d.png"});
  ASSERT_EQ(gray.status, 0) << gray.err;
  EXPECT_EQ(gray.err.find("changed"), std::string::npos) << gray.err;
  const auto blur = runVidfilter({"-i", glob, "--chain", "blur", "-o", dir / "b_%d.png"});
  ASSERT_EQ(blur.status, 0) << blur.err;
  EXPECT_NE(blur.err.find("pixel format changed from bgr to gray"), std::string::npos) << blur.err;
  EXPECT_EQ(blur.err.find("size changed"), std::string::npos) << blur.err;
}

// A 4:2:2 or 4:4:4 source keeps its chroma in a working file (.mkv), as ffmpeg keeps it, where
// the encoder takes it (and the finest it takes, named, where not); files made to be played
// (.mp4, .webm, .ts) are 4:2:0, which browsers and phones decode, with a line saying how to keep
// it; an encoder with 4:2:0 only (MPEG-4 in .avi) is named. A gray chain's output has no chroma
// to keep. The one video stream is the default.
TEST(PixelFormats, FinerChromaIsKeptInWorkingFilesAndNamedElsewhere) {
  TempDir dir("pix_chroma");
  for (const char* pix : {"yuv422p", "yuv444p"}) {
    SCOPED_TRACE(pix);
    const std::string chroma = std::string(pix) == "yuv422p" ? "4:2:2" : "4:4:4";
    const std::string in = dir / (std::string(pix) + ".mkv");
    ffmpeg("-i " + q(kVideo) + " -frames:v 3 -vf scale=160:96 -c:v ffv1 -pix_fmt " +
           std::string(pix) + " " + q(in));
    const auto run = [&](const std::string& name, std::vector<std::string> extra = {}) {
      std::vector<std::string> args = {"-y", "-i", in, "--chain", "blur", "-o", dir / name};
      args.insert(args.end(), extra.begin(), extra.end());
      const auto r = runVidfilter(args);
      EXPECT_EQ(r.status, 0) << r.err;
      return r;
    };
    const auto pixOf = [&](const std::string& name) {  // MPEG-TS lists its stream twice
      const std::string v = probeValue(dir / name, "-select_streams v:0", "stream=pix_fmt");
      return v.substr(0, v.find('\n'));
    };
    // Matroska: as ffmpeg writes the same input.
    const auto mkv = run("o.mkv");
    ffmpeg("-i " + q(in) + " -vf gblur " + q(dir / "ref.mkv"));
    EXPECT_EQ(pixOf("o.mkv"), pixOf("ref.mkv"));
    EXPECT_EQ(pixOf("o.mkv"), pix);
    EXPECT_EQ(mkv.err.find("chroma is written"), std::string::npos) << mkv.err;
    EXPECT_EQ(probeValue(dir / "o.mkv", "-select_streams v:0", "stream_disposition=default"), "1");
    // Files made to be played: 4:2:0, said once, with the way to keep it (which works).
    for (const char* name : {"o.mp4", "o.webm", "o.ts"}) {
      SCOPED_TRACE(name);
      const auto r = run(name);
      EXPECT_EQ(pixOf(name), "yuv420p");
      EXPECT_NE(r.err.find("the input's " + chroma + " chroma is written as 4:2:0"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.err.find("warning"), std::string::npos) << r.err;
    }
    run("kept.mp4", {"--pix-fmt", pix});
    EXPECT_EQ(pixOf("kept.mp4"), pix);
    // An encoder of 4:2:0 only, and MPEG-2's 4:2:2 for a 4:4:4 source in Matroska: named.
    const auto avi = run("o.avi");
    EXPECT_EQ(pixOf("o.avi"), "yuv420p");
    EXPECT_NE(avi.err.find("the input's " + chroma +
                           " chroma is written as 4:2:0: the mpeg4 "
                           "encoder does not take " +
                           chroma),
              std::string::npos)
        << avi.err;
    const auto mpeg2 = run("m2.mkv", {"--codec", "mpeg2video"});
    EXPECT_EQ(pixOf("m2.mkv"), "yuv422p");
    EXPECT_EQ(mpeg2.err.find("chroma is written") == std::string::npos, chroma == "4:2:2")
        << mpeg2.err;
    // A gray chain: no chroma to keep, nothing said.
    const std::string gray = dir / "g.mkv";
    const auto g = runVidfilter({"-y", "-i", in, "--chain", "gray,blur", "-o", gray});
    ASSERT_EQ(g.status, 0) << g.err;
    EXPECT_EQ(probeValue(gray, "-select_streams v:0", "stream=pix_fmt"), "yuv420p");
    EXPECT_EQ(g.err.find("chroma is written"), std::string::npos) << g.err;
  }
}

// Frames with alpha keep it where the encoder and the container do (VP9's yuva420p in .webm, as
// ffmpeg writes it), and transparency is named where it is lost (H.264; VP9 in .mp4, which drops
// VP9's alpha; VP8); frames that decode with an alpha channel but are opaque (a GIF) lose
// nothing and draw no warning, and every encoder takes them.
TEST(PixelFormats, TransparencyIsKeptOrNamed) {
  TempDir dir("pix_alpha");
  const std::string seq = dir / "a_%02d.png";
  ffmpeg(
      "-f lavfi -i testsrc2=size=160x96:rate=10 -frames:v 3 -vf "
      "\"format=rgba,geq=r='r(X,Y)':g='g(X,Y)':b='b(X,Y)':a='X+40'\" " +
      q(seq));
  const std::string webm = dir / "o.webm", ref = dir / "ref.webm";
  const auto r = runVidfilter({"-y", "-i", seq, "--chain", "brightness=gain=1", "-o", webm});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.find("alpha) is dropped"), std::string::npos) << r.err;
  ffmpeg("-i " + q(seq) + " " + q(ref));
  EXPECT_EQ(probeValue(webm, "-select_streams v:0", "stream_tags=alpha_mode"),
            probeValue(ref, "-select_streams v:0", "stream_tags=alpha_mode"));
  const auto want = ffmpegFrames(seq, "gray", "", "-vf alphaextract");
  const auto got = ffmpegFrames(webm, "gray", "-c:v libvpx-vp9", "-vf alphaextract");
  ASSERT_EQ(got.size(), want.size());
  ASSERT_FALSE(got.empty());
  for (std::size_t i = 0; i < got.size(); ++i)
    EXPECT_LE(cv::norm(got[i], want[i], cv::NORM_L1) / double(got[i].total()), 3.0) << i;
  for (const auto& [name, codec] : {std::pair<std::string, std::string>{"o.mp4", ""},
                                    {"vp9.mp4", "libvpx-vp9"},
                                    {"vp8.webm", "libvpx"}}) {
    SCOPED_TRACE(name);
    std::vector<std::string> args = {"-y", "-i",      seq, "--chain", "brightness=gain=1",
                                     "-o", dir / name};
    if (!codec.empty()) args.insert(args.end(), {"--codec", codec});
    const auto lost = runVidfilter(args);
    ASSERT_EQ(lost.status, 0) << lost.err;
    EXPECT_NE(lost.err.find("transparency (alpha) is dropped"), std::string::npos) << lost.err;
  }
  const std::string gif = dir / "t.gif";
  ffmpeg("-f lavfi -i testsrc2=size=160x96:rate=10 -frames:v 3 " + q(gif));
  for (const auto& [name, codec] :
       {std::pair<std::string, std::string>{"g.mp4", ""}, {"g8.webm", "libvpx"}}) {
    SCOPED_TRACE(name);
    std::vector<std::string> args = {"-y", "-i", gif, "--chain", "blur", "-o", dir / name};
    if (!codec.empty()) args.insert(args.end(), {"--codec", codec});
    const auto opaque = runVidfilter(args);
    ASSERT_EQ(opaque.status, 0) << opaque.err;
    EXPECT_EQ(opaque.err.find("alpha) is dropped"), std::string::npos) << opaque.err;
    EXPECT_EQ(countFrames(dir / name), 3);
  }
}
