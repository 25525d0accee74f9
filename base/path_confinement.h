#pragma once
// Confining a path to a set of roots (docs/architecture.md "Integrity and
// security defaults"): the files an agent writes and serves, and hnowd's `hnow
// run --input/--output` under its [run] roots. A relative path is under the
// data root (the first root), an absolute one must lie inside a root, `..` is
// refused, and every directory on the way is opened with O_NOFOLLOW, so no
// symlink leads out.
#include <string>
#include <vector>

#include "base/result.h"

namespace hnow {

// The components of `path`, without empty ones and ".": "a//./b/" -> {a, b}.
std::vector<std::string> componentsOf(const std::string& path);
// `root` with every symlink resolved, or "" when it does not exist.
std::string realRoot(const std::string& root);

// The root `path` lies in, every symlink resolved: the data root (the
// first) for a relative path; "" when it lies in none. Checks nothing else.
std::string rootOf(const std::vector<std::string>& roots, const std::string& path);

// How refusals name the path: "destination" / "write under", or
// "source file" / "source" / "read from".
struct PathWords {
  const char* noun;       // "'..' is not allowed in a NOUN", "the NOUN is empty"
  const char* shortNoun;  // "the SHORT must name a file, not a directory"
  const char* rootsUse;   // "OWNER has no roots to USE"
  const char* owner = "this agent";  // "PATH is outside OWNER's roots"
};

// The directory the named file is in, opened (caller closes `dirFd`).
struct ConfinedParent {
  int dirFd = -1;
  std::string dirPath;  // absolute, for messages and reports
  std::string name;     // the file's name inside it
};

// Walks `path` down from its root, creating missing directories when
// `createDirs`; the parent directory, or the reason the path is refused.
Result<ConfinedParent> openConfinedParent(const std::vector<std::string>& roots, const std::string& path,
                                          const PathWords& words, bool createDirs);

}  // namespace hnow
