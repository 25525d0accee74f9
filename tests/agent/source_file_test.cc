#include <doctest/doctest.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "agent/source_file.h"
#include "cli/run_process.h"

using hnow::agent::openSourceFile;
using hnow::agent::SourceFile;
using hnow::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string refusal(const std::vector<std::string>& roots, const std::string& file) {
  auto r = openSourceFile(roots, file);
  if (r) {
    auto* s = &r.value();
    ::close(s->fd);
    return "";
  }
  return r.error().message;
}

}  // namespace

TEST_CASE("a source file under the data root is opened with its size and SHA-256") {
  TempDir dir;
  fs::create_directories(dir.path / "root" / "data");
  const std::string bytes = "several files at once\n";
  std::ofstream(dir.path / "root" / "data" / "a.bin") << bytes;
  for (const std::string& file : {std::string("data/a.bin"), (dir.path / "root" / "data" / "a.bin").string()}) {
    auto r = openSourceFile({(dir.path / "root").string()}, file);
    auto* s = r ? &r.value() : nullptr;
    REQUIRE(s);
    CHECK(s->size == bytes.size());
    unsigned char expected[32];
    SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), expected);
    CHECK(std::equal(s->sha256.begin(), s->sha256.end(), expected));
    ::close(s->fd);
  }
}

TEST_CASE("a source file is confined to the roots like a destination: '..', symlinks, outside, not a file") {
  TempDir dir;
  fs::create_directories(dir.path / "root" / "sub");
  std::ofstream(dir.path / "secret") << "x";
  const std::vector<std::string> roots{(dir.path / "root").string()};
  CHECK(refusal(roots, "../secret") == "'..' is not allowed in a source file (../secret)");
  CHECK(refusal(roots, (dir.path / "secret").string()).find("is outside this agent's roots") != std::string::npos);
  fs::create_directory_symlink(dir.path, dir.path / "root" / "escape");
  CHECK(refusal(roots, "escape/secret").find("is a symlink or not a directory: refused") != std::string::npos);
  fs::create_symlink(dir.path / "secret", dir.path / "root" / "link");
  CHECK(refusal(roots, "link").find("is a symlink: refused") != std::string::npos);
  CHECK(refusal(roots, "sub").find("is not a regular file") != std::string::npos);
  CHECK(refusal(roots, "missing.bin").find("No such file or directory") != std::string::npos);
  CHECK(refusal(roots, "sub/").find("must name a file") != std::string::npos);
  CHECK(refusal({}, "a") == "this agent has no roots to read from");
}
