#include "server/posix_run_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "server/output_temps.h"
#include "server/run_paths.h"

namespace hnow::daemon {

namespace fs = std::filesystem;

PosixRunFiles::PosixRunFiles(std::string jobsDir, LiveRoots roots)
    : jobsDir_(std::move(jobsDir)), roots_(std::move(roots)), workFiles_(posixEnv()) {}

namespace {

// The --input's descriptor, opened once where the roots allowed it: every
// read and every range served is of that file, whatever its path names later.
class PosixRunInput final : public RunInput {
 public:
  PosixRunInput(int fd, std::uint64_t size, std::int64_t modifiedNs, std::string path)
      : fd_(fd), size_(size), modifiedNs_(modifiedNs), path_(std::move(path)) {}
  ~PosixRunInput() override { ::close(fd_); }
  PosixRunInput(const PosixRunInput&) = delete;
  PosixRunInput& operator=(const PosixRunInput&) = delete;
  std::uint64_t size() const override { return size_; }
  std::int64_t modifiedNs() const override { return modifiedNs_; }
  Result<std::string> read(std::uint64_t offset, std::size_t length) const override {
    std::string bytes(length, '\0');
    std::size_t done = 0;
    while (done < length) {
      const ssize_t n = ::pread(fd_, bytes.data() + done, length - done, static_cast<off_t>(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{"cannot read --input " + path_ + ": " + std::strerror(errno)};
      if (n == 0) break;
      done += static_cast<std::size_t>(n);
    }
    bytes.resize(done);
    return bytes;
  }
  int duplicate() const override { return ::fcntl(fd_, F_DUPFD_CLOEXEC, 0); }

 private:
  int fd_;
  std::uint64_t size_;
  std::int64_t modifiedNs_;
  std::string path_;
};

}  // namespace

Result<std::shared_ptr<const RunInput>> PosixRunFiles::openInput(const std::string& input) {
  auto opened = openRunInput(roots_.get(), input);
  if (!opened) return opened.error();
  const int fd = opened.value();
  struct stat info {};
  if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    ::close(fd);
    return Error{"--input " + input + " is not a regular file"};
  }
  return std::shared_ptr<const RunInput>(std::make_shared<PosixRunInput>(
      fd, static_cast<std::uint64_t>(info.st_size),
      static_cast<std::int64_t>(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec, input));
}

Result<OutputDir> PosixRunFiles::outputDir(std::uint64_t job, const std::string& output) {
  OutputDir out;
  if (output.empty()) {
    const int dir = ::open(jobsDir_.c_str(), O_DIRECTORY | O_RDONLY | O_CLOEXEC);
    if (dir < 0) return Error{"cannot open " + jobsDir_ + ": " + std::strerror(errno)};
    out.dir = posixEnvAt(dir, jobsDir_);
    out.name = "run-" + std::to_string(job) + ".out";
    out.temp = outputTempName(out.name, job);
    out.path = out.dir->pathOf(out.name);
    return out;  // inside jobs/ already: the sweep empties it
  }
  auto confined = openRunOutputDir(roots_.get(), output);
  if (!confined) return confined.error();
  const auto& [dir, dirPath, name] = confined.value();
  out.dir = posixEnvAt(dir, dirPath);
  out.name = name;
  out.temp = outputTempName(name, job);
  out.path = output;  // as the user named it
  out.markTemp = [jobsDir = jobsDir_, job, dirPath = dirPath, temp = outputTempName(name, job)]() {
    return std::shared_ptr<void>(std::make_shared<OutputTempMarker>(jobsDir, job, dirPath, temp));
  };
  return out;
}

Result<std::string> PosixRunFiles::makeWorkDir(std::uint64_t job) {
  const std::string dir = jobsDir_ + "/job-" + std::to_string(job) + "-" + std::to_string(::getpid());
  std::error_code error;
  fs::remove_all(dir, error);
  fs::create_directories(dir, error);
  if (error) return Error{"cannot create " + dir + ": " + error.message()};
  return dir;
}

void PosixRunFiles::removeWorkDir(const std::string& dir) {
  std::error_code error;
  fs::remove_all(dir, error);
}

void PosixRunFiles::forgetOutput(const std::string& path) {
  std::error_code error;
  fs::remove(path, error);
}

}  // namespace hnow::daemon
