#include "core/send/owed_sends.h"

#include <algorithm>
#include <set>

#include <spdlog/spdlog.h>

#include "base/joined.h"
#include "core/agent_selection.h"
#include "core/send/stored_send.h"

namespace hnow::daemon {

namespace {

}  // namespace

OwedSends::OwedSends(Coordinator& coordinator, StateStore& store, const Clock& clock, StartSend start)
    : coordinator_(coordinator), store_(store), clock_(clock), start_(std::move(start)) {}

Result<void> OwedSends::restore() {
  auto stored = store_.loadOwedSends();
  if (!stored) return stored.error();
  for (const StoredOwedSend& o : *stored) {
    spdlog::info("send {} is still owed to {} (--until-all, since hnowd's record of it)", o.id, joined(o.agents));
    items_[o.id] = Item{o, false, {}};
  }
  return {};
}

void OwedSends::save(const Item& item) {
  // Kept pending in memory when state.db cannot take it: the next change saves it all again.
  if (auto saved = store_.saveOwedSend(item.stored); !saved)
    spdlog::error("saving what send {} still owes: {}", item.stored.id, saved.error().message);
}

void OwedSends::ended(const SendEnd& end) {
  const SendRequest& r = end.request;
  if (r.owedBy) {
    auto it = items_.find(r.owedBy);
    if (it == items_.end()) return;
    Item& item = it->second;
    item.sending = false;
    auto& owed = item.stored.agents;
    for (const std::string& agent : end.delivered) {
      if (std::erase(owed, agent))
        spdlog::info("send {}: {} has its copy now, by send record {} (--until-all)", r.owedBy, agent, end.record);
    }
    if (!end.missed.empty()) item.retryAt = clock_.now() + kRetryAfter;
    save(item);
    if (owed.empty()) {
      spdlog::info("send {}: every agent it owed has its copy (--until-all)", r.owedBy);
      items_.erase(it);
    }
    return;
  }
  if (!r.untilAll || end.missed.empty() || end.record == 0) return;
  Item item;
  item.stored = storedOf(r);
  StoredOwedSend& o = item.stored;
  o.id = end.record;
  o.agents = end.missed;
  std::sort(o.agents.begin(), o.agents.end());
  o.agents.erase(std::unique(o.agents.begin(), o.agents.end()), o.agents.end());
  o.since = clock_.wallNow();
  item.retryAt = clock_.now();
  spdlog::info("send {}: owed to {}; each gets it when it is connected again (--until-all)", o.id, joined(o.agents));
  save(item);
  items_[o.id] = std::move(item);
}

void OwedSends::tick() {
  std::set<std::string> known, connected;
  for (const AgentView& a : coordinator_.status()) {
    known.insert(a.record.name);
    if (canTakePart(a)) connected.insert(a.record.name);
  }
  for (auto it = items_.begin(); it != items_.end();) {
    Item& item = it->second;
    auto& owed = item.stored.agents;
    const std::size_t before = owed.size();
    std::erase_if(owed, [&](const std::string& agent) { return !known.count(agent); });
    if (owed.size() != before) {
      spdlog::info("send {}: no longer owed to agents hnowd forgot", item.stored.id);
      save(item);
    }
    if (owed.empty()) {
      it = items_.erase(it);
      continue;
    }
    ++it;
    if (item.sending || clock_.now() < item.retryAt) continue;
    std::vector<std::string> now;
    for (const std::string& agent : owed)
      if (connected.count(agent)) now.push_back(agent);
    if (now.empty()) continue;
    SendRequest request = requestOf(item.stored, now);
    request.owedBy = item.stored.id;
    item.sending = true;
    const OperationId id = item.stored.id;
    spdlog::info("send {}: {} connected again, sending what it owes them", id, joined(now));
    start_(request, [this, id](const Result<std::uint64_t>& started) {
      if (started) return;
      auto found = items_.find(id);
      if (found == items_.end()) return;
      found->second.sending = false;
      found->second.retryAt = clock_.now() + kRetryAfter;
      spdlog::warn("send {}: the send of what it owes was refused ({}); trying again in {} s", id,
                   started.error().message, std::chrono::duration_cast<std::chrono::seconds>(kRetryAfter).count());
    });
  }
}

std::optional<std::vector<std::string>> OwedSends::cancel(OperationId send, const std::string& who) {
  auto it = items_.find(send);
  if (it == items_.end()) return std::nullopt;
  Item& item = it->second;
  const std::vector<std::string> owed = item.stored.agents;
  spdlog::info("send {}: no longer owed to {}, as {} cancelled it (--until-all)", send, joined(owed), who);
  item.stored.agents.clear();
  save(item);  // an item owing nobody is removed from state.db
  items_.erase(it);
  return owed;
}

std::vector<OwedSends::Owed> OwedSends::owed() const {
  std::vector<Owed> out;
  for (const auto& [id, item] : items_)
    out.push_back({id, item.stored.path, item.stored.dest, item.stored.agents, item.stored.since, item.sending});
  return out;
}

}  // namespace hnow::daemon
