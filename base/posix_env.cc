// The Env of a real file system: every name is resolved from one directory
// (the working one, or one opened once) with the *at() calls, and the file
// itself is never followed when it is a symlink (O_NOFOLLOW).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/env.h"

namespace hnow {

namespace {

Error failed(const char* what, const std::string& path, int error) {
  return Error{std::string("cannot ") + what + " " + path + ": " + std::strerror(error)};
}

class PosixWritableFile final : public WritableFile {
 public:
  PosixWritableFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) ::close(fd_);
  }
  Result<void> append(std::string_view bytes) override {
    for (std::size_t done = 0; done < bytes.size();) {
      ssize_t n = ::write(fd_, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed("write", path_, errno);
      done += static_cast<std::size_t>(n);
    }
    return {};
  }
  Result<void> syncAndClose() override {
    const int fd = fd_;
    fd_ = -1;
    if (::fsync(fd) != 0) {
      const int error = errno;
      ::close(fd);
      return failed("write", path_, error);
    }
    if (::close(fd) != 0) return failed("write", path_, errno);
    return {};
  }

 private:
  int fd_;
  std::string path_;
};

class PosixSequentialFile final : public SequentialFile {
 public:
  PosixSequentialFile(int fd, std::string path) : fd_(fd), path_(std::move(path)) {}
  ~PosixSequentialFile() override { ::close(fd_); }
  Result<std::string> read(std::size_t limit) override {
    std::string bytes(limit, '\0');
    for (;;) {
      ssize_t n = ::read(fd_, bytes.data(), limit);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed("read", path_, errno);
      bytes.resize(static_cast<std::size_t>(n));
      return bytes;
    }
  }

 private:
  int fd_;
  std::string path_;
};

class PosixEnv final : public Env {
 public:
  PosixEnv(int dirFd, std::string dirPath) : dir_(dirFd), dirPath_(std::move(dirPath)) {}
  ~PosixEnv() override {
    if (dir_ != AT_FDCWD) ::close(dir_);
  }
  PosixEnv(const PosixEnv&) = delete;
  PosixEnv& operator=(const PosixEnv&) = delete;

  std::string pathOf(const std::string& name) const override {
    return dirPath_.empty() || (!name.empty() && name.front() == '/') ? name : dirPath_ + "/" + name;
  }
  Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& name) override {
    // O_NONBLOCK: a FIFO in the file's place must not hang the caller (it is refused below).
    const int fd = ::openat(dir_, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return failed("open", pathOf(name), errno);
    struct stat info {};
    if (::fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
      ::close(fd);
      return Error{pathOf(name) + " is not a regular file"};
    }
    return std::unique_ptr<SequentialFile>(std::make_unique<PosixSequentialFile>(fd, pathOf(name)));
  }
  Result<std::unique_ptr<WritableFile>> createWritable(const std::string& name) override {
    const int fd = ::openat(dir_, name.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) return failed("write", pathOf(name), errno);
    return std::unique_ptr<WritableFile>(std::make_unique<PosixWritableFile>(fd, pathOf(name)));
  }
  Result<void> rename(const std::string& from, const std::string& to) override {
    if (::renameat(dir_, from.c_str(), dir_, to.c_str()) != 0) return failed("write", pathOf(to), errno);
    return {};
  }
  Result<bool> renameFrom(Env& other, const std::string& from, const std::string& to) override {
    auto* posix = dynamic_cast<PosixEnv*>(&other);
    if (!posix) return false;
    if (::renameat(posix->dir_, from.c_str(), dir_, to.c_str()) == 0) return true;
    if (errno == EXDEV) return false;
    return failed("write", pathOf(to), errno);
  }
  Result<void> remove(const std::string& name) override {
    if (::unlinkat(dir_, name.c_str(), 0) != 0) return failed("remove", pathOf(name), errno);
    return {};
  }
  Result<std::uint64_t> fileSize(const std::string& name) override {
    struct stat info {};
    if (::fstatat(dir_, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) return failed("stat", pathOf(name), errno);
    return static_cast<std::uint64_t>(info.st_size);
  }

 private:
  int dir_;
  std::string dirPath_;
};

}  // namespace

std::unique_ptr<Env> posixEnv() { return std::make_unique<PosixEnv>(AT_FDCWD, ""); }

std::unique_ptr<Env> posixEnvAt(int dirFd, std::string dirPath) {
  return std::make_unique<PosixEnv>(dirFd, std::move(dirPath));
}

}  // namespace hnow
