#include "server/trust.h"

namespace hnow::daemon {

void SessionCuts::add(const std::string& name, kj::Own<kj::PromiseFulfiller<void>> cut) {
  // Connections that ended on their own leave fulfillers nobody waits on.
  for (auto it = cuts_.begin(); it != cuts_.end();)
    it = it->second->isWaiting() ? std::next(it) : cuts_.erase(it);
  cuts_.emplace(name, kj::mv(cut));
}

unsigned SessionCuts::cut(const std::string& name) {
  unsigned closed = 0;
  auto [first, last] = cuts_.equal_range(name);
  for (auto it = first; it != last; ++it)
    if (it->second->isWaiting()) {
      it->second->fulfill();
      ++closed;
    }
  cuts_.erase(first, last);
  return closed;
}

const OperatorEntry* Trust::findOperator(const std::string& name) const {
  for (const OperatorEntry& o : operators)
    if (o.name == name) return &o;
  return nullptr;
}

}  // namespace hnow::daemon
