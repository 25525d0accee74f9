#pragma once
// What the receiver's tests check of a receive: its file's digest, and the
// temp files it leaves under a directory.
#include <openssl/sha.h>

#include <filesystem>
#include <string>

#include "transport/data/data_plane.h"

namespace hnow::testing {

inline transport::data::Sha256 digestOfBytes(const std::string& bytes) {
  transport::data::Sha256 out{};
  SHA256(reinterpret_cast<const unsigned char*>(bytes.data()), bytes.size(), out.data());
  return out;
}

// Names under `dir` that a receive leaves while it runs (temp and scratch files).
inline int leftovers(const std::filesystem::path& dir) {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    n += e.path().filename().string().find(".hnow-") != std::string::npos;
  return n;
}

}  // namespace hnow::testing
