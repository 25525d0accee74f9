// `hnow send --manifest M.toml` (conf/manifest.h): any text gives items
// that each have a source, a file, a destination, somewhere to go and the
// place they were written, or one error naming the file.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "conf/manifest.h"
#include "fuzz/fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = hnow::conf::parseManifest(text, "M.toml");
  if (!loaded.ok()) {
    HNOW_FUZZ_CHECK(!loaded.error().message.empty(), "an error says what is wrong");
    HNOW_FUZZ_CHECK(loaded.error().file == "M.toml", "an error names the file");
    return 0;
  }
  HNOW_FUZZ_CHECK(!loaded->items.empty(), "a manifest has at least one item");
  for (const auto& item : loaded->items) {
    HNOW_FUZZ_CHECK(!item.to.empty(), "an item goes somewhere");
    HNOW_FUZZ_CHECK(item.where.rfind("M.toml:", 0) == 0, "an item knows where it was written");
  }
  return 0;
}
