#pragma once
// A manifest for `hnow send --manifest M.toml`: several files,
// each from its own source agent to its own destinations, sent together.
//   [[item]]
//   source = "agent-name"     # the file lives under that agent's data root
//   file = "datasets/a.bin"
//   dest = "incoming/a.bin"
//   to = ["n2", "n3"]         # or "all", or a site
// Agent and site names are checked by hnowd when the manifest is sent; each
// item keeps its file:line:column so those refusals can name it.
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace hnow::conf {

struct ManifestItem {
  std::string source;
  std::string file;
  std::string dest;
  std::vector<std::string> to;  // ["all"], site names or agent names; never empty
  std::string where;            // "M.toml:3:1", the item's [[item]] header
};

struct Manifest {
  std::vector<ManifestItem> items;  // in file order, at least one
};

Result<Manifest> parseManifest(std::string_view text, const std::string& sourceName);
Result<Manifest> loadManifest(const std::string& path);

}  // namespace hnow::conf
