// A receive that resumes what an earlier process of this agent left in its
// temp file (leftover_bytes.h): the bytes are checked on libuv's thread
// pool, as reading and hashing a large file would stall every transfer on
// the loop, and the receive pulls from after the last chunk that matched.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include "transport/data/plane_impl.h"

namespace hnow::transport::data {

namespace {

struct LeftoverCheck {
  uv_work_t request{};
  std::weak_ptr<bool> alive;
  std::function<void(std::uint64_t good, ChunkDigests digests)> done;  // on the loop, while the plane lives
  int fd = -1;  // a duplicate: the operation's may close while this runs
  std::uint64_t base = 0, held = 0;
  ChunkDigests digests;
  std::vector<KeptList> kept;
  std::uint32_t range = 0;
  std::uint64_t good = 0;
};

}  // namespace

void DataPlane::Impl::checkLeftover(Operation& op, std::uint64_t held, const std::vector<KeptList>& kept) {
  if (held == 0 || op.digests.empty()) return;
  auto* check = new LeftoverCheck;
  check->alive = alive_;
  check->done = [this, token = op.token](std::uint64_t good, ChunkDigests digests) {
    leftoverChecked(token, good, std::move(digests));
  };
  check->fd = ::fcntl(op.fd, F_DUPFD_CLOEXEC, 0);
  check->base = op.base;
  check->held = held;
  check->digests = op.digests;
  check->kept = kept;
  check->range = op.rangeIndex;
  if (check->fd < 0) {
    delete check;
    return;
  }
  op.checkingLeftover = true;
  check->request.data = check;
  uv_queue_work(
      loop(), &check->request,
      [](uv_work_t* r) {
        auto* c = static_cast<LeftoverCheck*>(r->data);
        c->good = data::checkLeftover(c->fd, c->range, c->base, c->held, c->digests, c->kept);
      },
      [](uv_work_t* r, int) {
        auto* c = static_cast<LeftoverCheck*>(r->data);
        ::close(c->fd);
        if (!c->alive.expired()) c->done(c->good, std::move(c->digests));
        delete c;
      });
}

void DataPlane::Impl::leftoverChecked(const std::string& token, std::uint64_t good, ChunkDigests digests) {
  Operation* op = find(token);
  if (!op || !op->checkingLeftover) return;  // released meanwhile
  op->checkingLeftover = false;
  if (!op->receiving()) return;
  op->digests = std::move(digests);
  op->available = op->writebackFrom = good;
  spdlog::info("the receive into {}{} resumes after the {} bytes an earlier process of this agent left that match "
               "the source's",
               op->file().path, op->assembly ? " (bytes " + std::to_string(op->base) + "-" +
                                                   std::to_string(op->base + op->size) + ")"
                                             : std::string(),
               good);
  if (good > 0) emit(TransferEvent::Kind::kProgress, *op);
  if (!op->parentAddress.empty() && !op->upstream && !op->parentBelied) connectUpstream(*op);
}

void DataPlane::Impl::listTaken(Operation& op, std::uint64_t offset, std::string_view list) {
  const int fd = op.file().listsFd;
  if (fd < 0) return;
  const std::string entry = encodeKeptList({op.rangeIndex, offset, std::string(list)});
  // Appended whole or not at all as far as a reader cares: a torn entry ends the list (decodeKeptLists).
  if (::write(fd, entry.data(), entry.size()) != static_cast<ssize_t>(entry.size()))
    spdlog::warn("cannot keep the chunk digests of the piece at byte {} of {}: a restart of this agent checks "
                 "fewer of the bytes it holds",
                 offset, op.file().path);
}

}  // namespace hnow::transport::data
