// A parent nobody can connect to hands a file over anyway: it dials the
// receiving plane and presents a ticket (FrameType::kOffer), and the roles
// of that connection swap. The receiver pulls over it with its usual
// PullConnection (resume offset, chunk checks, SHA-256), the dialer serves
// with its usual ServeConnection: one transfer protocol, whoever dialed.
// Built for hnowd fetching job results from agents behind NAT
// (docs/reachability.md).
#include <spdlog/spdlog.h>

#include "transport/data/frame.h"
#include "transport/data/plane_impl.h"

namespace hnow::transport::data {

void DataPlane::Impl::awaitOffer(const std::string& token, std::string ticket) {
  Operation* op = find(token);
  if (!op || !op->receiving()) return;  // released or over meanwhile, as pull()
  if (ticket.size() != kTokenBytes) return fail(*op, "an offer's ticket must be 32 bytes");
  if (auto taken = offerTickets_.find(ticket); taken != offerTickets_.end() && taken->second != token)
    return fail(*op, "that offer ticket is another receive's");
  if (!op->offerTicket.empty()) offerTickets_.erase(op->offerTicket);
  op->offerTicket = ticket;
  offerTickets_[std::move(ticket)] = token;
  op->parentAddress = "(the parent dials in)";
  op->parentBelied = false;
  uv_timer_stop(op->retryTimer.get());
}

// The ticket, not the token, opens the receive: hnowd hands it to the one
// agent it asks to dial, over that agent's authenticated control link, so
// a peer that learnt the file's token (another agent a partial result was
// moved to) still cannot deliver it. The connection held a hello slot
// until now, as every accepted one does (DataOptions::maxAwaitingHello).
void DataPlane::Impl::offered(ServeConnection* connection, const std::string& ticket) {
  auto it = offerTickets_.find(ticket);
  Operation* op = it == offerTickets_.end() ? nullptr : find(it->second);
  const char* refused = !op                 ? "an offer with an unknown ticket (forged, or of a receive that ended)"
                        : !op->receiving()  ? "an offer for a receive that is over"
                        : op->upstream      ? "an offer while another connection carries that receive"
                        : op->parentBelied  ? "an offer from a parent that served corrupt data"
                                            : nullptr;
  if (refused) {
    spdlog::warn("data connection from {} dropped: {}", connection->peer(), refused);
    return connection->close("refused offer");
  }
  op->parentAddress = connection->peer();
  op->state = Operation::State::kReceiving;
  op->upstream = std::make_unique<PullConnection>(*this, *op);
  PullConnection& pull = *op->upstream;
  pull.adopt(connection->stream());  // says HELLO from the bytes held
  serveClosed(connection);           // its slot and object go; the socket is the pull's
}

void DataPlane::Impl::offer(std::string token, std::string ticket, std::string address, OfferStarted started) {
  const Operation* op = find(token);
  if (!op || op->available != op->size ||
      (op->state != Operation::State::kSource && op->state != Operation::State::kDone))
    return started(Error{"this agent holds no whole file under that token to hand over"});
  if (ticket.size() != kTokenBytes) return started(Error{"an offer's ticket must be 32 bytes"});
  sockaddr_storage parsed{};
  if (!parseAddress(address, parsed)) return started(Error{"cannot resolve the data address " + address});
  auto connection = std::make_unique<ServeConnection>(*this);
  ServeConnection* raw = connection.get();
  children_[raw] = std::move(connection);  // before dial(): a connect failing at once closes it
  raw->dial(reinterpret_cast<const sockaddr*>(&parsed), std::move(token), ticket,
            [started = std::move(started), address](const Result<void>& said) {
              if (said) return started(said);
              started(Error{"cannot hand the file over to " + address + ": " + said.error().message});
            });
}

void DataPlane::awaitOffer(std::string token, std::string ticket) {
  loop_->post([this, token = std::move(token), ticket = std::move(ticket)]() mutable {
    impl_->awaitOffer(token, std::move(ticket));
  });
}

void DataPlane::offer(std::string token, std::string ticket, std::string address, OfferStarted started) {
  loop_->post([this, token = std::move(token), ticket = std::move(ticket), address = std::move(address),
               started = std::move(started)]() mutable {
    impl_->offer(std::move(token), std::move(ticket), std::move(address), std::move(started));
  });
}

}  // namespace hnow::transport::data
