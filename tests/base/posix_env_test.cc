#include <doctest/doctest.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "base/env.h"

namespace fs = std::filesystem;

namespace {

struct TempDir {
  TempDir() {
    char pattern[] = "/tmp/hnow-env-XXXXXX";
    path = ::mkdtemp(pattern);
  }
  ~TempDir() { fs::remove_all(path); }
  std::unique_ptr<hnow::Env> env() const { return hnow::posixEnvAt(::open(path.c_str(), O_DIRECTORY | O_RDONLY), path); }
  std::string path;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

std::string readAll(hnow::Env& env, const std::string& name) {
  auto file = env.openSequential(name);
  REQUIRE(file.ok());
  std::string out;
  for (auto bytes = file.value()->read(3); bytes && !bytes->empty(); bytes = file.value()->read(3)) out += *bytes;
  return out;
}

}  // namespace

TEST_CASE("an Env at a directory writes, reads, sizes, renames and removes files inside it") {
  TempDir dir;
  auto env = dir.env();
  auto file = env->createWritable("a.part");
  REQUIRE(file.ok());
  REQUIRE(file.value()->append("hello, ").ok());
  REQUIRE(file.value()->append("world").ok());
  REQUIRE(file.value()->syncAndClose().ok());
  REQUIRE(env->rename("a.part", "a").ok());
  CHECK(slurp(dir.path + "/a") == "hello, world");
  CHECK_FALSE(fs::exists(dir.path + "/a.part"));
  CHECK(readAll(*env, "a") == "hello, world");
  CHECK(*env->fileSize("a") == 12);
  CHECK(env->pathOf("a") == dir.path + "/a");
  REQUIRE(env->remove("a").ok());
  CHECK_FALSE(fs::exists(dir.path + "/a"));
}

TEST_CASE("an Env says which file it could not open, and follows no symlink as the file") {
  TempDir dir;
  auto env = dir.env();
  auto missing = env->openSequential("none");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().message == "cannot open " + dir.path + "/none: No such file or directory");

  std::ofstream(dir.path + "/secret") << "do not leak";
  fs::create_symlink(dir.path + "/secret", dir.path + "/link");
  CHECK_FALSE(env->openSequential("link").ok());
  auto written = env->createWritable("link");
  REQUIRE_FALSE(written.ok());
  CHECK(slurp(dir.path + "/secret") == "do not leak");

  fs::create_directory(dir.path + "/sub");
  auto notFile = env->openSequential("sub");
  REQUIRE_FALSE(notFile.ok());
  CHECK(notFile.error().message == dir.path + "/sub is not a regular file");
}

TEST_CASE("an Env keeps to the directory it opened, even when that path is swapped for a symlink") {
  TempDir dir, elsewhere;
  fs::create_directory(dir.path + "/out");
  auto env = hnow::posixEnvAt(::open((dir.path + "/out").c_str(), O_DIRECTORY | O_RDONLY), dir.path + "/out");
  fs::rename(dir.path + "/out", dir.path + "/moved");
  fs::create_directory_symlink(elsewhere.path, dir.path + "/out");
  auto file = env->createWritable("x");
  REQUIRE(file.ok());
  REQUIRE(file.value()->syncAndClose().ok());
  CHECK(fs::exists(dir.path + "/moved/x"));
  CHECK_FALSE(fs::exists(elsewhere.path + "/x"));
}

TEST_CASE("a rename from another Env on the same file system moves the file, and appendFile copies one") {
  TempDir a;
  fs::create_directory(a.path + "/in");
  fs::create_directory(a.path + "/out");
  auto in = hnow::posixEnvAt(::open((a.path + "/in").c_str(), O_DIRECTORY | O_RDONLY), a.path + "/in");
  auto out = hnow::posixEnvAt(::open((a.path + "/out").c_str(), O_DIRECTORY | O_RDONLY), a.path + "/out");
  std::ofstream(a.path + "/in/r") << "result";
  auto moved = out->renameFrom(*in, "r", "final");
  REQUIRE(moved.ok());
  CHECK(*moved);
  CHECK(slurp(a.path + "/out/final") == "result");

  auto copy = out->createWritable("copy");
  REQUIRE(copy.ok());
  auto copied = hnow::appendFile(*out, "final", *copy.value());
  REQUIRE(copied.ok());
  CHECK(*copied == 6);
  REQUIRE(copy.value()->syncAndClose().ok());
  CHECK(slurp(a.path + "/out/copy") == "result");
  CHECK_FALSE(hnow::appendFile(*out, "absent", *out->createWritable("y").value()).ok());
}

TEST_CASE("the working directory's Env takes paths as they are") {
  TempDir dir;
  auto env = hnow::posixEnv();
  const std::string path = dir.path + "/w";
  auto file = env->createWritable(path);
  REQUIRE(file.ok());
  REQUIRE(file.value()->append("x").ok());
  REQUIRE(file.value()->syncAndClose().ok());
  CHECK(env->pathOf(path) == path);
  CHECK(*env->fileSize(path) == 1);
}
