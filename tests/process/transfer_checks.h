#pragma once
// What the process tests of sends and manifests check copies with.
#include <openssl/sha.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace hnow::testing {

// `size` bytes from a generator seeded with the size, written to `path`
// (its directory created); returns them.
// `variant` gives other bytes of the same size: an agent holding a file's
// bytes anywhere under its root copies them there instead of receiving them
// (docs/send.md), so a test that means to move a file again sends new bytes.
inline std::string writeRandomFile(const std::filesystem::path& path, std::size_t size, std::uint64_t variant = 0) {
  std::filesystem::create_directories(path.parent_path());
  std::mt19937_64 random(size + (variant << 40));
  std::string bytes(size, '\0');
  for (auto& c : bytes) c = static_cast<char>(random());
  std::ofstream(path, std::ios::binary) << bytes;
  return bytes;
}

// `size` bytes of log lines (compressible, as --compress expects), written
// to `path` (its directory created); returns them.
inline std::string writeTextFile(const std::filesystem::path& path, std::size_t size, unsigned variant = 0) {
  std::filesystem::create_directories(path.parent_path());
  std::mt19937 random(static_cast<unsigned>(size) + variant * 7919u);
  std::string text;
  for (int line = 0; text.size() < size; ++line)
    text += "2024-05-0" + std::to_string(line % 9 + 1) + " 12:" + std::to_string(random() % 60) + " agent-" +
            std::to_string(random() % 40) + " relayed chunk " + std::to_string(random() % 100000) + " of course.iso\n";
  text.resize(size);
  std::ofstream(path, std::ios::binary) << text;
  return text;
}

inline std::string shaHex(const std::string& bytes) {
  unsigned char d[32];
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), d);
  char hex[65];
  for (int i = 0; i < 32; ++i) std::snprintf(hex + 2 * i, 3, "%02x", d[i]);
  return hex;
}

// Temp files of unfinished receives anywhere under `root`.
inline int partFiles(const std::filesystem::path& root) {
  int n = 0;
  std::error_code error;
  for (const auto& e : std::filesystem::recursive_directory_iterator(root, error)) {
    // The directory of receives' records stays; a record left in it counts.
    const bool records = e.path().filename() == ".hnow-receives";
    n += records ? 0 : e.path().filename().string().find(".hnow-") != std::string::npos ||
                            e.path().parent_path().filename() == ".hnow-receives";
  }
  return n;
}

}  // namespace hnow::testing
