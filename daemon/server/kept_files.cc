#include "server/kept_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <system_error>
#include <vector>

#include <spdlog/spdlog.h>

#include "server/data_source_plane.h"
#include "server/kept_copies.h"
#include "server/uploads.h"
#include "transport/data/digest_cache.h"
#include "transport/data/frame.h"

namespace hnow::daemon {

namespace {

namespace fs = std::filesystem;

// Each key's record, `<SHA-256 of the key>.kept`: the generation holding
// the copy and the client's stamp, one line. Its mtime is when the copy
// was last sent: the least recent go first.
constexpr const char* kRecordSuffix = ".kept";
constexpr const char* kGenerationSuffix = ".file";

struct Record {
  std::string generation;  // a file name in the directory
  api::FileStamp stamp;
};

std::optional<Record> readRecord(const std::string& path) {
  std::ifstream in(path);
  Record r;
  if (!(in >> r.generation >> r.stamp.size >> r.stamp.mtimeNs >> r.stamp.ctimeNs >> r.stamp.inode)) return std::nullopt;
  if (r.generation.find('/') != std::string::npos || r.generation.size() < std::strlen(kGenerationSuffix))
    return std::nullopt;
  return r;
}

// Written whole beside the old record, then renamed over it: a crash leaves one or the other.
bool writeRecord(const std::string& path, const Record& r) {
  const std::string temp = path + ".tmp";
  {
    std::ofstream out(temp, std::ios::trunc);
    out << r.generation << ' ' << r.stamp.size << ' ' << r.stamp.mtimeNs << ' ' << r.stamp.ctimeNs << ' '
        << r.stamp.inode << '\n';
    if (!out.flush()) return false;
  }
  return ::rename(temp.c_str(), path.c_str()) == 0;
}

void removeFile(const std::string& path, const char* what) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    spdlog::warn("cannot remove the {} {}: {}", what, path, std::strerror(errno));
}

}  // namespace

std::string KeptFiles::recordPath(const std::string& key) const {
  return dir_ + "/" + keptName(key) + kRecordSuffix;
}

bool KeptFiles::holds(const std::string& key, const api::FileStamp& stamp) const {
  auto record = readRecord(recordPath(key));
  struct stat info {};
  return record && record->stamp == stamp && ::stat((dir_ + "/" + record->generation).c_str(), &info) == 0 &&
         static_cast<std::uint64_t>(info.st_size) == stamp.size;
}

Result<std::string> KeptFiles::use(const std::string& key, const api::FileStamp& stamp) {
  if (!holds(key, stamp))
    return Error{"hnowd no longer holds this file from the last upload (another upload replaced it, or it was "
                 "evicted): send it again, and it is uploaded"};
  const std::string record = recordPath(key);
  const std::string path = dir_ + "/" + readRecord(record)->generation;
  ::utimensat(AT_FDCWD, record.c_str(), nullptr, 0);  // just used: evicted last
  ++readers_[path];
  return path;
}

Result<std::string> KeptFiles::place(std::uint64_t size) {
  std::error_code error;
  fs::create_directories(dir_, error);
  if (error) return Error{"cannot create " + dir_ + ": " + error.message()};
  if (!swept_) {  // before this hnowd's first generation: what is unnamed now, an earlier one left
    swept_ = true;
    if (std::size_t n = sweep()) spdlog::warn("removed {} kept file(s) an earlier hnowd left unrecorded in {}", n, dir_);
  }
  auto free = freeBytes(dir_);
  if (!free) return free.error();
  if (*free < size + kUploadReserveBytes)
    return Error{"keeping it would leave hnowd's disk too little free for another upload of it (" +
                 std::to_string(*free >> 20) + " MiB free); it is removed when its send ends"};
  const auto now = std::chrono::system_clock::now().time_since_epoch();
  return dir_ + "/" + std::to_string(::getpid()) + "-" + std::to_string(++nextGeneration_) + "-" +
         std::to_string(std::chrono::duration_cast<std::chrono::nanoseconds>(now).count()) + kGenerationSuffix;
}

std::string KeptFiles::commit(const std::string& key, const api::FileStamp& stamp, const std::string& generation) {
  const std::string record = recordPath(key);
  const auto old = readRecord(record);
  ++readers_[generation];
  if (!writeRecord(record, {fs::path(generation).filename().string(), stamp})) {
    // Not named by a record, the copy is this send's scratch: removed at its release.
    spdlog::warn("cannot write the record {} of a kept file: {}", record, std::strerror(errno));
    replaced_.insert(generation);
    return generation;
  }
  if (old) {
    const std::string before = dir_ + "/" + old->generation;
    if (before != generation) {
      if (readers_.count(before)) replaced_.insert(before);
      else removeFile(before, "replaced kept file");
    }
  }
  evict();
  return generation;
}

void KeptFiles::release(const std::string& path) {
  auto it = readers_.find(path);
  if (it == readers_.end() || --it->second > 0) return;
  readers_.erase(it);
  if (replaced_.erase(path)) removeFile(path, "replaced kept file");
}

void KeptFiles::evict() {
  for (const fs::path& past : usedPast(dir_, kRecordSuffix, maxFiles_)) {
    const auto record = readRecord(past);
    const std::string generation = record ? dir_ + "/" + record->generation : "";
    if (readers_.count(generation)) continue;  // a send reads it: kept past the bound until a later upload
    if (!generation.empty()) removeFile(generation, "kept file");
    removeFile(past, "kept file's record");
    spdlog::info("removed the kept file {}: {} are kept at most", generation, maxFiles_);
  }
}

std::size_t KeptFiles::sweep() const {
  std::set<std::string> named;
  std::vector<fs::path> files;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir_, error)) {
    if (entry.path().extension() == kRecordSuffix) {
      if (auto record = readRecord(entry.path())) named.insert(record->generation);
    } else {
      files.push_back(entry.path());
    }
  }
  std::size_t removed = 0;
  for (const fs::path& file : files)
    if (!named.count(file.filename().string()) && fs::remove(file, error)) ++removed;
  return removed;
}

Result<void> moveIntoKept(const std::string& uploadPath, const std::string& generation) {
  const int fd = ::open(uploadPath.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error{"cannot open the upload " + uploadPath + ": " + std::strerror(errno)};
  // Remembered since the upload landed (uploads.h): no byte is read here.
  auto digests = transport::data::rememberedDigests(fd, transport::data::kChunkBytes);
  if (!digests) {
    ::close(fd);
    return Error{"cannot read the upload " + uploadPath + ": " + digests.error().message};
  }
  if (::rename(uploadPath.c_str(), generation.c_str()) != 0) {
    const int why = errno;
    ::close(fd);
    return Error{"cannot move the upload " + uploadPath + " to " + generation + ": " + std::strerror(why)};
  }
  // Only hnowd writes its directory, and not this file since it hashed it.
  transport::data::rememberWritten(fd, *digests);
  ::close(fd);
  return {};
}

void DataSourcePlane::keepFile(const std::string& key, const api::FileStamp& stamp, const std::string& uploadPath,
                               KeptFileDone done) {
  auto generation = keptFiles_.place(stamp.size);
  if (!generation) {
    spdlog::info("not keeping the upload {}: {}", uploadPath, generation.error().message);
    return done(KeptFile{uploadPath, false});
  }
  work_.run<Result<void>>(
      [uploadPath, to = *generation] { return moveIntoKept(uploadPath, to); },
      [this, key, stamp, uploadPath, to = *generation, done](Result<void>& moved) {
        if (!moved) {
          spdlog::warn("not keeping the upload {}: {}", uploadPath, moved.error().message);
          return done(KeptFile{uploadPath, false});
        }
        done(KeptFile{keptFiles_.commit(key, stamp, to), true});
      });
}

}  // namespace hnow::daemon
