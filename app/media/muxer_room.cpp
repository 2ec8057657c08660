// The muxer's look ahead before each packet: whether the disk and the file size limit leave
// room for it and the container's index, so a full disk stops the run with a file that plays.
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <algorithm>

#include "app/media/muxer.hpp"

namespace vf::media {

namespace {

std::string outOfRoomText(const std::string& cause, std::int64_t frames, const std::string& advice,
                          const std::string& closeError) {
  std::string kept;
  if (frames == 0)
    kept = "stopped before the first frame";
  else if (closeError.empty())
    kept = "stopped after " + std::to_string(frames) + " frames and closed the file, which plays";
  else
    kept = "stopped after " + std::to_string(frames) + " frames; closing the file failed too (" +
           closeError + "), so it may not play";
  return cause + "; " + kept + "; " + advice;
}

}  // namespace

OutOfRoom::OutOfRoom(std::string cause, std::int64_t frames, std::string advice)
    : MediaError(cause),
      cause_(std::move(cause)),
      advice_(std::move(advice)),
      text_(outOfRoomText(cause_, frames, advice_, "")),
      frames_(frames) {}

void OutOfRoom::closeFailed(const std::string& why) {
  text_ = outOfRoomText(cause_, frames_, advice_, why);
}

void OutOfRoom::removed() {
  text_ = cause_ + "; stopped after " + std::to_string(frames_) +
          " frames, and the partial file is removed to give its space back; " + advice_;
}

void Muxer::checkRoom(std::int64_t next) {
  if (spec_.toStdout || spec_.network || !ctx_->pb || finishing_) return;
  // Only a regular file takes room on a disk and counts against ulimit -f: a pipe (a process
  // substitution's /dev/fd/N), a device and what /proc and /sys hold are written as they are,
  // and their own errors say what failed.
  struct stat st {};
  struct statvfs fs {};
  if (::stat(spec_.path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
  // After this packet there must still be room for the container's index: per packet up to
  // about 48 bytes (mp4's moov), and a fixed part (its boxes for each stream, metadata and
  // chapters: 1-6 KiB in mp4, mov and Matroska files of a few streams) with a margin.
  biggestPacket_ = std::max(biggestPacket_, next);
  const std::int64_t need = next + 2 * biggestPacket_ + 48 * (packets_ + 1);
  // What the packets given so far make of the file: avio_tell leaves out what a muxer holds in
  // memory (Matroska's open cluster: up to 5 s or 5 MiB), so the packets' bytes count too.
  const std::int64_t written = std::max(avio_tell(ctx_->pb), headerBytes_ + payloadBytes_);
  // The file size limit is exact: no write has failed, the next ones would.
  struct rlimit lim {};
  if (::getrlimit(RLIMIT_FSIZE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY &&
      written + need + (16 << 10) > static_cast<std::int64_t>(lim.rlim_cur))
    throw OutOfRoom("writing " + spec_.path + ": the file size limit (ulimit -f, " +
                        std::to_string(lim.rlim_cur / 1024) +
                        " KiB) leaves too little room for more frames and the file's index",
                    videoPackets_, "raise the limit or write less");
  // The file system that holds the file (through a link, the target's); one that reports no
  // size at all (procfs, sysfs) has no free space to count.
  if (::statvfs(spec_.path.c_str(), &fs) != 0 || fs.f_blocks == 0) return;
  const double avail = double(fs.f_bavail) * double(fs.f_frsize);
  // The free space counts only what reached the file: what is still in FFmpeg's buffers (the
  // file's 256 KiB I/O buffer, Matroska's open cluster) takes its share of it too.
  // The free space is less exact (the file system's own blocks, other writers): a wider margin.
  const std::int64_t pending = std::max<std::int64_t>(0, written - st.st_size);
  if (avail < double(pending + need + (96 << 10)))
    throw OutOfRoom("the disk holding " + spec_.path + " has " +
                        std::to_string(static_cast<long long>(avail / 1024)) +
                        " KiB free, too little for more frames and the file's index",
                    videoPackets_, "free some space or write elsewhere");
}

}  // namespace vf::media
