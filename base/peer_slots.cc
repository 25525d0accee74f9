#include "base/peer_slots.h"

namespace hnow {

PeerSlots::Admission PeerSlots::admit(const std::string& peer) {
  Admission admission;
  if (peerOf_.size() >= limits_.total) {
    const std::size_t mine = heldBy(peer);
    // Its share held already: it waits for one of its own to log in or end.
    if (mine >= limits_.perPeer) {
      admission.verdict = Verdict::kPeerFull;
      return admission;
    }
    // The address holding the most slots, the oldest of them among equals.
    const std::set<Ticket>* most = nullptr;
    const std::string* mostPeer = nullptr;
    for (const auto& [address, tickets] : byPeer_)
      if (!most || tickets.size() > most->size() ||
          (tickets.size() == most->size() && *tickets.begin() < *most->begin())) {
        most = &tickets;
        mostPeer = &address;
      }
    // Taking from an address that holds no more than this one would only
    // move the flood around: refused then.
    if (!most || most->size() <= mine) {
      admission.verdict = Verdict::kPoolFull;
      return admission;
    }
    admission.evicted = *most->begin();
    admission.evictedPeer = *mostPeer;
    release(*admission.evicted);
  }
  admission.ticket = next_++;
  peerOf_[admission.ticket] = peer;
  byPeer_[peer].insert(admission.ticket);
  return admission;
}

void PeerSlots::release(Ticket ticket) {
  auto it = peerOf_.find(ticket);
  if (it == peerOf_.end()) return;
  auto tickets = byPeer_.find(it->second);
  tickets->second.erase(ticket);
  if (tickets->second.empty()) byPeer_.erase(tickets);
  peerOf_.erase(it);
}

std::size_t PeerSlots::heldBy(const std::string& peer) const {
  auto it = byPeer_.find(peer);
  return it == byPeer_.end() ? 0 : it->second.size();
}

std::string addressOf(const std::string& hostPort) {
  // Every "host:port" hnow makes ends in its port, IPv6 ("::1:41234") too.
  auto colon = hostPort.rfind(':');
  return colon == std::string::npos ? hostPort : hostPort.substr(0, colon);
}

}  // namespace hnow
