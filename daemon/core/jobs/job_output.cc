#include "core/jobs/job_output.h"

namespace hnow::daemon {

Result<std::uint64_t> writeConcatenation(Env& from, const std::vector<std::string>& results, const OutputPlace& place) {
  const std::shared_ptr<void> mark = place.markTemp ? place.markTemp() : nullptr;
  auto out = place.dir.createWritable(place.temp);
  if (!out) return out.error();
  std::uint64_t total = 0;
  auto failed = [&](const Error& error) -> Result<std::uint64_t> {
    out.value().reset();  // closed before it goes
    place.dir.remove(place.temp);
    return error;
  };
  for (const std::string& result : results) {
    auto copied = appendFile(from, result, *out.value());
    if (!copied) return failed(copied.error());
    total += *copied;
  }
  if (auto closed = out.value()->syncAndClose(); !closed) return failed(closed.error());
  if (auto renamed = place.dir.rename(place.temp, place.name); !renamed) return failed(renamed.error());
  return total;
}

Result<std::uint64_t> placeFinal(Env& from, const std::string& final, const OutputPlace& place) {
  auto renamed = place.dir.renameFrom(from, final, place.name);
  if (!renamed) return renamed.error();
  if (!*renamed) {
    auto copied = writeConcatenation(from, {final}, place);
    if (!copied) return copied.error();
  }
  return place.dir.fileSize(place.name);
}

}  // namespace hnow::daemon
