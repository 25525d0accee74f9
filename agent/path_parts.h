#pragma once
// What confining a path to an agent's roots needs, for files it writes
// (dest_path.h) and files it serves (source_file.h) alike.
#include <string>
#include <vector>

namespace hnow::agent {

// The components of `path`, without empty ones and ".": "a//./b/" -> {a, b}.
std::vector<std::string> componentsOf(const std::string& path);
// `root` with every symlink resolved, or "" when it does not exist.
std::string realRoot(const std::string& root);

}  // namespace hnow::agent
