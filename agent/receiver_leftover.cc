// Receives an earlier process of this agent left (receive_records.h),
// taken over by the next receive of the same file into the same path.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "agent/receive_records.h"
#include "agent/receiver.h"
#include "base/path_confinement.h"
#include "base/printable.h"

namespace hnow::agent {

namespace {

std::string dataRootOf(const std::vector<std::string>& roots) { return roots.empty() ? std::string() : roots.front(); }

transport::data::Sha256 shaOf(const std::string& bytes) {
  transport::data::Sha256 out{};
  std::copy_n(bytes.begin(), std::min(bytes.size(), out.size()), out.begin());
  return out;
}

// Removes a leftover's temp file, reached from its root as any destination.
void removeTemp(const std::vector<std::string>& roots, const std::string& dir, const std::string& temp) {
  auto opened = openConfinedParent(roots, dir + "/" + temp, {"destination", "destination", "write under"}, false);
  if (!opened) return;
  ::unlinkat(opened->dirFd, opened->name.c_str(), 0);
  ::close(opened->dirFd);
}

}  // namespace

std::size_t Receiver::restoreLeftovers() {
  for (const ReceiveRecord& r : readReceiveRecords(dataRootOf(roots_))) {
    HeldReceive held{r.path, r.size, r.sha256, {}, r.compressed, r.tree, r.atomic, r.deleteOthers};
    for (const ReceiveRecord::Stripe& s : r.stripes) {
      transport::orders::StripeOrder stripe;
      stripe.offset = s.offset;
      stripe.length = s.length;
      stripe.sha256.assign(reinterpret_cast<const char*>(s.sha256.data()), s.sha256.size());
      held.stripes.push_back(std::move(stripe));
    }
    held.recordId = r.id();
    leftovers_.push_back({std::move(held), r.dir, r.temp});
    spdlog::info("holding what an earlier process of this agent received into {} ({}), for the next send of it",
                 printable(r.path), printable(r.dir + "/" + r.temp));
  }
  return leftovers_.size();
}

void Receiver::track(const std::string& token, HeldReceive& held, transport::data::ReceiveTarget& target,
                     const std::string& dir) {
  const std::string dataRoot = dataRootOf(roots_);
  for (auto it = leftovers_.begin(); it != leftovers_.end(); ++it) {
    if (it->dir != dir || !it->held.sameFile(held)) continue;
    const Leftover left = std::move(*it);
    leftovers_.erase(it);
    // Opened in the directory the order's destination was confined to, without following a link.
    const int fd = ::openat(target.dirFd, left.temp.c_str(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      if (fd >= 0) ::close(fd);
      dropRecord(left.held);
      break;
    }
    std::string lists;
    const int listsFd = openReceiveLists(dataRoot, left.held.recordId, lists);
    ::close(target.fileFd);
    ::unlinkat(target.dirFd, target.tempName.c_str(), 0);
    target.fileFd = fd;
    target.tempName = left.temp;
    target.heldBytes = static_cast<std::uint64_t>(st.st_size);
    target.keptLists = transport::data::decodeKeptLists(lists);
    target.listsFd = listsFd;
    held.recordId = left.held.recordId;
    adopted_.insert(token);
    for (const transport::orders::StripeOrder& s : held.stripes) adopted_.insert(s.token);
    spdlog::info("the receive into {} takes over the {} bytes an earlier process of this agent left, checked against "
                 "the source's digests before it pulls",
                 printable(held.path), st.st_size);
    return;
  }
  ReceiveRecord record{dir, target.tempName, held.path, held.size, held.sha256, {}, held.compressed, held.tree,
                       held.atomic, held.deleteOthers};
  for (const transport::orders::StripeOrder& s : held.stripes)
    record.stripes.push_back({s.offset, s.length, shaOf(s.sha256)});
  target.listsFd = keepReceiveRecord(dataRoot, record);
  held.recordId = record.id();
}

void Receiver::dropRecord(const HeldReceive& held) { dropReceiveRecord(dataRootOf(roots_), held.recordId); }

std::size_t Receiver::dropLeftovers() {
  for (const Leftover& left : leftovers_) {
    spdlog::info("dropping what an earlier process of this agent received into {}: no send resumed it",
                 printable(left.held.path));
    removeTemp(roots_, left.dir, left.temp);
    dropRecord(left.held);
  }
  return std::exchange(leftovers_, {}).size();
}

}  // namespace hnow::agent
