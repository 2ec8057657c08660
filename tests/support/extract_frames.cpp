// extract_frames VIDEO OUT COUNT STEP: writes COUNT BGR frames (every STEP-th) of VIDEO into OUT,
// a raw file the tests read, so that test programs need no OpenCV video I/O (they also run on
// hosts without it) and decode nothing per test. Format: "VFFRAMES" count width height, then
// count * width * height * 3 bytes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <opencv2/videoio.hpp>

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: extract_frames VIDEO OUT COUNT STEP\n");
    return 2;
  }
  cv::VideoCapture cap(argv[1]);
  if (!cap.isOpened()) {
    std::fprintf(stderr, "extract_frames: cannot open %s (install opencv-doc)\n", argv[1]);
    return 1;
  }
  const int count = std::atoi(argv[3]), step = std::atoi(argv[4]);
  std::ofstream out(argv[2], std::ios::binary);
  cv::Mat f;
  int written = 0;
  for (int i = 0; written < count && cap.read(f); ++i) {
    if (i % step) continue;
    if (written == 0) {
      const std::int32_t hdr[3] = {count, f.cols, f.rows};
      out.write("VFFRAMES", 8);
      out.write(reinterpret_cast<const char*>(hdr), sizeof hdr);
    }
    for (int y = 0; y < f.rows; ++y)
      out.write(f.ptr<char>(y), static_cast<std::streamsize>(f.cols) * 3);
    ++written;
  }
  if (written != count) {
    std::fprintf(stderr, "extract_frames: %s has fewer than %d frames\n", argv[1], count * step);
    return 1;
  }
  return out ? 0 : 1;
}
