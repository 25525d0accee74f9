// DataSourcePlane's side of a job's input (core/send/source_plane.h serveRange,
// indexUnits): the input's file is read through once to cut it into units,
// and each share is served as a range of it, hashed off the kj thread. No
// share is copied and the input is never held whole.
#include <unistd.h>

#include <utility>

#include "base/hex.h"
#include "server/data_source_plane.h"
#include "transport/data/range_digest.h"

namespace hnow::daemon {

namespace {

// A range hashed, with the descriptor it is served from (closed here when
// it never is: released meanwhile, or hnowd stops first).
struct HashedRange {
  Result<transport::data::Sha256> sha256 = Error{""};
  int fd = -1;
  HashedRange() = default;
  HashedRange(HashedRange&& o) noexcept : sha256(std::move(o.sha256)), fd(std::exchange(o.fd, -1)) {}
  HashedRange& operator=(HashedRange&&) = delete;
  ~HashedRange() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

void DataSourcePlane::serveRange(const std::string& token, std::shared_ptr<const RunInput> input,
                                 std::uint64_t offset, std::uint64_t length, Served done) {
  rangesWanted_.insert(token);
  ranges_.push_back({token, std::move(input), offset, length, std::move(done)});
  hashNextRange();
}

void DataSourcePlane::hashNextRange() {
  while (!hashingRange_ && !ranges_.empty()) {
    PendingRange range = std::move(ranges_.front());
    ranges_.pop_front();
    if (!rangesWanted_.count(range.token)) continue;  // released before its turn
    hashingRange_ = true;
    auto input = range.input;
    const std::uint64_t offset = range.offset, length = range.length;
    work_.run<HashedRange>(
        [input, offset, length] {
          HashedRange out;
          out.fd = input->duplicate();
          out.sha256 = out.fd < 0 ? Result<transport::data::Sha256>(Error{"cannot open the input again"})
                                  : transport::data::sha256OfRange(out.fd, offset, length);
          return out;
        },
        [this, range = std::move(range)](HashedRange& hashed) {
          hashingRange_ = false;
          const bool wanted = rangesWanted_.erase(range.token) > 0;
          if (wanted && !hashed.sha256) range.done(hashed.sha256.error());
          if (wanted && hashed.sha256) {
            const auto& digest = *hashed.sha256;
            SourceFile file;
            file.size = range.length;
            file.sha256.assign(reinterpret_cast<const char*>(digest.data()), digest.size());
            file.sha256Hex = hnow::hexOf(digest.data(), digest.size());
            // One token names both the file and its one range: releasing it ends both.
            plane_.addSourceRanges(range.token, std::exchange(hashed.fd, -1),
                                   {transport::data::ByteRange{range.token, range.offset, range.length, digest, {}}});
            range.done(file);
          }
          hashNextRange();
        });
  }
}

void DataSourcePlane::indexUnits(std::shared_ptr<const RunInput> input, const conf::SplitSpec& spec, Indexed done) {
  work_.run<Result<conf::UnitIndex>>(
      [input, spec] {
        return conf::UnitIndex::scan(spec, input->size(), [&input](std::uint64_t offset, std::size_t length) {
          return input->read(offset, length);
        });
      },
      [done](Result<conf::UnitIndex>& index) { done(index); });
}

}  // namespace hnow::daemon
