#pragma once
// Runs a command line through /bin/sh for process-level tests and captures
// its exit status, stdout and stderr.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hnow::testing {

struct ProcessResult {
  int status = -1;
  std::string out;
  std::string err;
};

inline std::string readWhole(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh directory under the system temp dir, removed by the destructor.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "hnow-test-XXXXXX").string();
    path = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

inline ProcessResult runCommand(const std::string& command) {
  TempDir dir;
  auto out = dir.path / "out", err = dir.path / "err";
  int raw = std::system((command + " >" + out.string() + " 2>" + err.string() + " </dev/null").c_str());
  ProcessResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = readWhole(out);
  r.err = readWhole(err);
  return r;
}

}  // namespace hnow::testing
