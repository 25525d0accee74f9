#pragma once
// The file system as logic sees it, after LevelDB's Env (docs/architecture.md
// "Conventions the code follows"): files are opened, written, renamed, sized
// and removed through this interface, so core/ never calls POSIX itself and
// its tests run on files kept in memory (tests/support/memory_env.h). An Env
// resolves names in one place: the working directory (posixEnv) or one
// directory opened once (posixEnvAt), so a directory confined before the
// writes (path_confinement.h) cannot be swapped for a symlink under them.
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"

namespace hnow {

class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual Result<void> append(std::string_view bytes) = 0;
  // The bytes on disk, then the file closed: only then may it be renamed into place.
  virtual Result<void> syncAndClose() = 0;
};

class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Up to `limit` bytes from where the last read ended; empty at the end.
  virtual Result<std::string> read(std::size_t limit) = 0;
};

class Env {
 public:
  virtual ~Env() = default;
  // `name` as a user would find it: for messages and reports.
  virtual std::string pathOf(const std::string& name) const = 0;
  // A regular file, never through a symlink as the file itself.
  virtual Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& name) = 0;
  // Created or emptied, never through a symlink as the file itself.
  virtual Result<std::unique_ptr<WritableFile>> createWritable(const std::string& name) = 0;
  virtual Result<void> rename(const std::string& from, const std::string& to) = 0;
  // `from` in `other` renamed to `to` here, when both are on one file system;
  // false (nothing done) when they are not, so the caller copies instead.
  virtual Result<bool> renameFrom(Env& other, const std::string& from, const std::string& to) = 0;
  virtual Result<void> remove(const std::string& name) = 0;
  virtual Result<std::uint64_t> fileSize(const std::string& name) = 0;
};

// The file's bytes appended to `to`; how many.
Result<std::uint64_t> appendFile(Env& from, const std::string& name, WritableFile& to);

// Names are paths, relative ones from the working directory.
std::unique_ptr<Env> posixEnv();
// Names are inside the directory `dirFd` (owned: closed with the Env), which
// `dirPath` names in messages.
std::unique_ptr<Env> posixEnvAt(int dirFd, std::string dirPath);

}  // namespace hnow
