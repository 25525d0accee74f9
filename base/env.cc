// What every Env offers on top of its own calls.
#include "base/env.h"

namespace hnow {

Result<std::uint64_t> appendFile(Env& from, const std::string& name, WritableFile& to) {
  auto in = from.openSequential(name);
  if (!in) return in.error();
  std::uint64_t copied = 0;
  for (;;) {
    auto bytes = in.value()->read(1 << 20);
    if (!bytes) return bytes.error();
    if (bytes->empty()) return copied;
    if (auto written = to.append(*bytes); !written) return written.error();
    copied += bytes->size();
  }
}

}  // namespace hnow
