#pragma once
// An Env whose files live in a map (LevelDB's MemEnv): core logic's file
// work is tested without a disk, and a test can make any step fail.
#include <map>
#include <memory>
#include <set>
#include <string>

#include "base/env.h"

namespace hnow::testing {

class MemoryEnv final : public Env {
 public:
  explicit MemoryEnv(std::string dirPath = "/mem") : dirPath_(std::move(dirPath)) {}
  std::map<std::string, std::string> files;
  // Names whose next create, append, rename into or read fails (a full disk, a lost mount).
  std::set<std::string> failing;

  std::string pathOf(const std::string& name) const override { return dirPath_ + "/" + name; }

  Result<std::unique_ptr<SequentialFile>> openSequential(const std::string& name) override {
    auto it = files.find(name);
    if (it == files.end()) return Error{"cannot open " + pathOf(name) + ": No such file or directory"};
    if (failing.count(name)) return Error{"cannot read " + pathOf(name) + ": Input/output error"};
    return std::unique_ptr<SequentialFile>(std::make_unique<Reader>(it->second));
  }
  Result<std::unique_ptr<WritableFile>> createWritable(const std::string& name) override {
    if (failing.count(name)) return Error{"cannot write " + pathOf(name) + ": No space left on device"};
    files[name].clear();
    return std::unique_ptr<WritableFile>(std::make_unique<Writer>(*this, name));
  }
  Result<void> rename(const std::string& from, const std::string& to) override {
    auto it = files.find(from);
    if (it == files.end() || failing.count(to)) return Error{"cannot write " + pathOf(to) + ": rename failed"};
    files[to] = std::move(it->second);
    files.erase(from);
    return {};
  }
  // Two MemoryEnvs are two file systems: only a rename inside one is possible.
  Result<bool> renameFrom(Env& other, const std::string& from, const std::string& to) override {
    if (&other != this) return false;
    if (auto done = rename(from, to); !done) return done.error();
    return true;
  }
  Result<void> remove(const std::string& name) override {
    if (!files.erase(name)) return Error{"cannot remove " + pathOf(name) + ": No such file or directory"};
    return {};
  }
  Result<std::uint64_t> fileSize(const std::string& name) override {
    auto it = files.find(name);
    if (it == files.end()) return Error{"cannot stat " + pathOf(name) + ": No such file or directory"};
    return static_cast<std::uint64_t>(it->second.size());
  }

 private:
  struct Reader final : SequentialFile {
    explicit Reader(std::string bytes) : bytes(std::move(bytes)) {}
    Result<std::string> read(std::size_t limit) override {
      std::string out = bytes.substr(at, limit);
      at += out.size();
      return out;
    }
    std::string bytes;
    std::size_t at = 0;
  };
  struct Writer final : WritableFile {
    Writer(MemoryEnv& env, std::string name) : env(env), name(std::move(name)) {}
    Result<void> append(std::string_view bytes) override {
      if (env.failing.count(name)) return Error{"cannot write " + env.pathOf(name) + ": No space left on device"};
      env.files[name].append(bytes);
      return {};
    }
    Result<void> syncAndClose() override { return {}; }
    MemoryEnv& env;
    std::string name;
  };
  std::string dirPath_;
};

}  // namespace hnow::testing
