#pragma once
// The web view's page, script and style, built into hnowd from
// daemon/server/web/ (CMake writes them into web_assets.cc as string
// literals): nothing is fetched at build time or served from disk.
#include <string_view>

namespace hnow::daemon {

struct WebAsset {
  std::string_view path;  // "/index.html"
  const char* type;       // its Content-Type
  std::string_view body;
};

// The asset served at `path`; null when there is none.
const WebAsset* findWebAsset(std::string_view path);

}  // namespace hnow::daemon
