#include "core/send/send_service.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "base/hex.h"
#include "base/joined.h"
#include "core/send/agent_answers.h"
#include "core/agent_selection.h"
#include "core/send/held_source.h"
#include "core/links/hosts.h"
#include "core/links/trunk_survey.h"
#include "core/operation_records.h"
#include "core/send/send_service_state.h"
#include "core/send/tree_held.h"

namespace hnow::daemon {

std::vector<std::string> boundsOf(const Coordinator& coordinator, const std::vector<AgentView>& agents) {
  std::vector<std::string> out;
  auto add = [&out](const std::string& node, const char* direction, const LinkView& link) {
    if (!link.rate.bound()) return;
    char text[160];
    std::snprintf(text, sizeof text, "%s %s >= %.1f Mbit/s", node.c_str(), direction,
                  link.rate.bytesPerSecond * 8 / 1e6);
    out.push_back(text);
  };
  add(kCoordinatorNode, "uplink", coordinator.coordinatorLinks().up);
  for (const AgentView& a : agents) {
    add(a.record.name, "uplink", a.links.up);
    add(a.record.name, "downlink", a.links.down);
  }
  return out;
}

std::string recordedFile(const SendRequest& request) {
  return request.uploadedFrom.empty() ? jsonString(request.path)
                                      : jsonString(request.uploadedFrom) + ",\"uploaded\":true";
}

SendService::SendService(Coordinator& coordinator, SourcePlane& plane, std::string sourceAddress,
                         const Clock& clock, std::uint32_t chunkBytes, double configuredUplinkBytesPerSecond,
                         std::function<std::string()> newToken)
    : coordinator_(coordinator), plane_(plane), sourceAddress_(std::move(sourceAddress)), clock_(clock),
      chunkBytes_(chunkBytes), configuredUplink_(configuredUplinkBytesPerSecond), newToken_(std::move(newToken)),
      runs_(coordinator, plane, configuredUplinkBytesPerSecond) {
  runs_.onGroupEnded([this](const SendEnd& end) { groupEnded(end); });
}

std::optional<SendStatus> SendService::status(std::uint64_t operation) const {
  if (auto family = families_.find(operation); family != families_.end()) return familyStatus(*family->second);
  return runs_.status(operation);
}

std::vector<SkippedAgent> SendService::skippedOf(const SendRequest& request) const {
  std::vector<SkippedAgent> out = absentWanted(coordinator_.status(), request.to, clock_.now());
  out.insert(out.end(), request.leftOut.begin(), request.leftOut.end());
  return out;
}

Result<std::vector<AgentView>> SendService::receiversOf(const SendRequest& request) {
  if (!knownSendAlgo(request.algo)) return Error{"unknown --algo " + request.algo};
  if (!knownCompressMode(request.compress))
    return Error{"unknown --compress " + request.compress + " (auto, zstd or none)"};
  if (auto dest = checkDestination(request.dest, "--dest"); !dest) {
    spdlog::warn("refused a send: {}", dest.error().message);
    return dest.error();
  }
  std::vector<AgentView> present;
  for (AgentView& a : coordinator_.status())
    if (canTakePart(a)) present.push_back(std::move(a));
  const std::vector<SkippedAgent> skipped = skippedOf(request);
  std::vector<std::string> to = request.to;
  // --until-all: an agent or site named whose agents cannot receive now is
  // owed the send, not a reason to refuse it.
  if (request.untilAll) {
    const std::vector<AgentView> known = coordinator_.status();
    std::erase_if(to, [&](const std::string& t) {
      bool off = false;
      for (const AgentView& a : known)
        if (wantedBy(a, {t})) {
          if (canTakePart(a)) return false;
          off = true;
        }
      return off;
    });
  }
  if (request.untilAll && to.empty() && !request.to.empty()) return Error{kNoneCanReceive};
  auto selected = selectAgents(std::move(present), to);
  if (!selected) {
    // An agent named that hnowd knows but cannot reach: say why.
    for (const SkippedAgent& k : skipped)
      for (const std::string& t : to)
        if (t == k.node)
          return Error{k.node + " cannot receive now (" + k.why +
                       "); leave it out of --to, or wait until it is back (or send with --until-all)"};
    return selected.error();
  }
  std::vector<AgentView> chosen = std::move(selected).value();
  if (chosen.empty()) return Error{request.untilAll && !skipped.empty() ? kNoneCanReceive : "no alive agent can receive"};
  return chosen;
}

namespace {

// The agents among `chosen` whose uplink or downlink hnowd has no rate for:
// every plan weighs each node's time to send and to receive, so it needs
// both.
std::vector<std::string> unmeasuredOf(const std::vector<AgentView>& chosen) {
  std::vector<std::string> out;
  for (const AgentView& a : chosen)
    if (!a.links.up.rate.known() || !a.links.down.rate.known()) out.push_back(a.record.name);
  return out;
}

}  // namespace

void SendService::seesTree(const std::string& path, const std::string& listingHex,
                           std::function<void(bool same)> done) {
  plane_.listTree(path, [listingHex, done](const Result<std::string>& listed) { done(listed && *listed == listingHex); });
}

void SendService::start(SendRequest request, Started started) {
  runs_.forgetOldest();
  forgetFamilies();
  // An upload, or hnowd's kept copy of one (which it may evict before the agents come back).
  if (request.untilAll && (request.scratch || !request.uploadedFrom.empty())) {
    if (request.scratch) plane_.dropScratch(request.path);
    return started(Error{"--until-all keeps a send owed to agents that are off, so its path must stay on "
                         "hnowd's machine; an upload or standard input is gone once its send ends (copy it "
                         "to hnowd's machine first, then send that path)"});
  }
  if (request.uploadIsTree) return startUploadedTree(std::move(request), std::move(started));
  if (!request.keptTree.empty()) return startKeptTree(std::move(request), std::move(started));
  if (!request.uploadKey.empty()) return startKeptFile(std::move(request), std::move(started));
  begin(std::move(request), std::move(started));
}

void SendService::begin(SendRequest request, Started started) {
  auto receivers = receiversOf(request);
  if (!receivers && receivers.error().message == kNoneCanReceive) return oweAll(request, std::move(started));
  if (!receivers) return started(receivers.error());
  if (const std::vector<std::string> unmeasured = unmeasuredOf(*receivers); !unmeasured.empty()) {
    const std::string names = joined(unmeasured);
    if (!measurer_ || request.linksMeasured)
      return started(Error{"the links of " + names +
                           " have not been measured yet: hnowd surveys them once agents have joined and no "
                           "operation runs (hnow status shows them; hnow measure asks for it now)"});
    spdlog::info("a send of {} waits for hnowd to measure the links of {}, which joined since the last survey",
                 request.path, names);
    request.linksMeasured = true;
    return measurer_(unmeasured, [this, request = std::move(request), started = std::move(started),
                                  names](const Result<void>& measured) mutable {
      if (!measured)
        return started(Error{"the links of " + names + " could not be measured, so no plan can include them: " +
                             measured.error().message + " (leave them out of --to, or see hnow measure)"});
      begin(std::move(request), std::move(started));
    });
  }
  if (!request.scratch && request.pin.readPath.empty() && pinner_) {
    auto pinned = pinner_(request.path);
    if (!pinned) return started(pinned.error());
    request.pin = std::move(pinned).value();
  }
  if (!plane_.isDirectory(readPathOf(request))) {
    for (const auto& [set, flag] : {std::pair{request.copy.atomic, "--atomic"}, std::pair{request.copy.deleteOthers, "--delete"}})
      if (set)
        return started(Error{std::string(flag) + " is for a directory's tree; " + request.path +
                             " is not a directory (a file is always renamed into place whole)"});
    beginPreparing(request, started, *receivers);
    std::unique_ptr<HeldBundle> upload;
    // An upload goes with its send; a kept copy stays (released through scratchSource).
    if (request.scratch && !request.keptCopy) upload.reset(new HeldBundle{plane_, {request.path, 0, {}}, false});
    return askDestinations(std::move(request), std::move(receivers).value(), std::move(upload), std::move(started));
  }
  if (request.force)
    return started(Error{"--force is for a file; a directory's tree replaces the files it names (and --delete "
                         "removes the others)"});
  if (request.copy.atomic && request.copy.deleteOthers)
    return started(Error{"--atomic already replaces the whole tree; leave out --delete"});
  beginPreparing(request, started, *receivers);
  // A directory goes as one bundle of its tree, holding only the files some agent lacks.
  plane_.scanTree(readPathOf(request), [this, request, chosen = std::move(receivers).value(),
                                 started](const Result<TreeScan>& scanned) mutable {
    if (!scanned) return started(scanned.error());
    askAbout(std::move(request), std::move(chosen), std::make_shared<const TreeScan>(*scanned), std::move(started));
  });
}

void SendService::askDestinations(SendRequest request, std::vector<AgentView> chosen,
                                  std::unique_ptr<HeldBundle> upload, Started started) {
  auto size = plane_.sizeOf(readPathOf(request));
  if (!size) return started(size.error());
  std::vector<std::string> agents;
  for (const AgentView& a : chosen) agents.push_back(a.record.name);
  // Held until the answers come (std::function needs what it holds copyable).
  auto kept = std::make_shared<std::unique_ptr<HeldBundle>>(std::move(upload));
  askHolding(
      agents, [this](const std::string& name) { return coordinator_.link(name); }, request.dest, *size,
      digestOf(request),
      [this, request, chosen, kept, size = *size, started](const Result<HeldAtDest>& held) mutable {
        if (!held) {
          spdlog::warn("a send was refused by its destinations: {}", held.error().message);
          return refuseRecorded(request, "refused: " + held.error().message, started);
        }
        if (!request.force && !held->other.empty()) {
          const std::string why = refusalToReplace(held->other, request.dest);
          spdlog::warn("refused a send of {}: {}", request.path, why);
          return refuseRecorded(request, why, started);
        }
        copyHeldElsewhere(request, size, *held, [this, request, chosen, kept, size, started](HeldAtDest held) mutable {
          planHeld(std::move(request), std::move(chosen), kept, size, std::move(held), std::move(started));
        });
      });
}

void SendService::copyHeldElsewhere(const SendRequest& request, std::uint64_t size, HeldAtDest held,
                                    std::function<void(HeldAtDest)> done) {
  if (held.elsewhere.empty()) return done(std::move(held));
  std::vector<std::string> agents;
  for (const HeldElsewhere& e : held.elsewhere) agents.push_back(e.agent);
  auto copies = std::make_shared<HeldAtDest>(std::move(held));
  askAgents<std::string>(
      agents, [this](const std::string& name) { return coordinator_.link(name); },
      [request, size, copies](AgentLink& link, std::size_t i, std::function<void(const Result<std::string>&)> answer) {
        link.copyHeld(request.dest, copies->elsewhere[i].path, size, copies->sha256, answer);
      },
      [request, copies, done](std::vector<Result<std::string>> answers) {
        for (std::size_t i = 0; i < answers.size(); ++i) {
          const HeldElsewhere& e = copies->elsewhere[i];
          if (!answers[i]) {  // it is sent the file as any agent that lacks it
            spdlog::warn("send {}: {} held it at {} but could not copy it: {}", request.path, e.agent, e.path,
                         answers[i].error().message);
            continue;
          }
          spdlog::info("send {}: {} wrote {} from {}, which held the same bytes: nothing to send", request.path,
                       e.agent, *answers[i], e.path);
          copies->copied.push_back(e);
          copies->same.push_back(e.agent);
        }
        done(std::move(*copies));
      });
}

void SendService::planHeld(SendRequest request, std::vector<AgentView> chosen,
                           std::shared_ptr<std::unique_ptr<HeldBundle>> kept, std::uint64_t size, HeldAtDest held,
                           Started started) {
  if (request.cancelled()) return endCancelled(request, started);
  std::vector<AgentView> holders;
  std::erase_if(chosen, [&held, &holders](const AgentView& a) {
    const bool holds = std::find(held.same.begin(), held.same.end(), a.record.name) != held.same.end();
    if (holds) holders.push_back(a);
    return holds;
  });
  if (chosen.empty()) return finishHeld(request, size, held, started);
  std::vector<AgentView> others = otherServers(request, chosen);
  for (const AgentView& h : holders) std::erase_if(others, [&h](const AgentView& o) { return o.record.name == h.record.name; });
  if (others.empty())
    return startPlanned(std::move(request), std::move(chosen), std::move(*kept), started, held, std::move(holders));
  askOthers(std::move(request), std::move(chosen), kept, held, std::move(holders), std::move(others), started);
}

std::vector<AgentView> SendService::otherServers(const SendRequest& request, const std::vector<AgentView>& chosen) const {
  if (request.compress == "zstd" || request.algo == "striped") return {};  // hnowd serves those
  const double hnowd = capped(coordinator_.pacing().sourceUplink(configuredUplink_).plan, request.maxRateBytesPerSecond);
  std::vector<AgentView> out;
  for (AgentView& a : coordinator_.status()) {
    const double up = capped(a.record.rates.uplinkBytesPerSecond, request.maxRateBytesPerSecond);
    const bool inSend = std::any_of(chosen.begin(), chosen.end(),
                                    [&a](const AgentView& c) { return c.record.name == a.record.name; });
    // A relay suspect, or an agent others cannot connect to, serves nobody
    // (relay_suspects.h, reachability.h): not asked.
    if (!inSend && canTakePart(a) && up > (1.0 + kHeldSourceGain) * hnowd && coordinator_.relays().mayRelay(a.record.name))
      out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const AgentView& a, const AgentView& b) {
    return a.record.rates.uplinkBytesPerSecond > b.record.rates.uplinkBytesPerSecond;
  });
  if (out.size() > kMaxOtherServers) out.resize(kMaxOtherServers);
  return out;
}

void SendService::askOthers(SendRequest request, std::vector<AgentView> chosen,
                            std::shared_ptr<std::unique_ptr<HeldBundle>> upload, HeldAtDest held,
                            std::vector<AgentView> holders, std::vector<AgentView> others, Started started) {
  auto size = plane_.sizeOf(readPathOf(request));
  if (!size) return started(size.error());
  // Each agent is asked on its own, so one that refuses the question (its
  // roots do not hold --dest) silences only itself; hnowd hashes the file
  // at most once for all of them (none when the send's own agents needed
  // its digest already).
  struct Asking {
    std::size_t waiting = 0;
    std::vector<bool> holds;
    std::string sha256;
  };
  auto asking = std::make_shared<Asking>();
  asking->waiting = others.size();
  asking->holds.assign(others.size(), false);
  FileDigest digest = digestOf(request);
  if (!held.sha256.empty())
    digest = [known = held.sha256](std::function<void(const Result<std::string>&)> done) { done(known); };
  auto answered = [this, asking, request, chosen, upload, held, holders, others, started]() mutable {
    if (--asking->waiting > 0) return;
    for (std::size_t k = 0; k < others.size(); ++k)
      if (asking->holds[k]) holders.push_back(others[k]);
    if (held.sha256.empty()) held.sha256 = asking->sha256;
    startPlanned(std::move(request), std::move(chosen), std::move(*upload), started, held, std::move(holders));
  };
  for (std::size_t k = 0; k < others.size(); ++k) {
    const std::string name = others[k].record.name;
    askHolding(
        {name}, [this](const std::string& n) { return coordinator_.link(n); }, request.dest, *size, digest,
        [asking, k, name, answered, path = request.path](const Result<HeldAtDest>& answer) mutable {
          if (!answer) {
            spdlog::info("send {}: {} was not asked to serve it: {}", path, name, answer.error().message);
          } else {
            asking->holds[k] = !answer->same.empty();
            if (!answer->sha256.empty()) asking->sha256 = answer->sha256;
          }
          answered();
        });
  }
}

FileDigest SendService::digestOf(const SendRequest& request) {
  // Every caller shares one hash: the first asks the plane, the others wait for it.
  struct Shared {
    std::optional<Result<std::string>> digest;
    bool hashing = false;
    std::vector<std::function<void(const Result<std::string>&)>> waiting;
  };
  auto shared = std::make_shared<Shared>();
  // The pin held until the hash is taken.
  return [this, shared, path = readPathOf(request), pin = request.pin](std::function<void(const Result<std::string>&)> done) {
    if (shared->digest) return done(*shared->digest);
    shared->waiting.push_back(std::move(done));
    if (std::exchange(shared->hashing, true)) return;
    plane_.hashFile(path, [shared](const Result<SourceFile>& file) {
      shared->digest = file ? Result<std::string>(file->sha256) : Result<std::string>(file.error());
      for (auto& want : std::exchange(shared->waiting, {})) want(*shared->digest);
    });
  };
}

void SendService::askAbout(SendRequest request, std::vector<AgentView> chosen, std::shared_ptr<const TreeScan> scan,
                           Started started) {
  std::vector<std::string> agents;
  for (const AgentView& a : chosen) agents.push_back(a.record.name);
  askMissing(
      agents, [this](const std::string& name) { return coordinator_.link(name); }, request.dest, scan,
      [this, id = scan->id](const std::vector<std::size_t>& files) { return plane_.digestQueries(id, files); },
      [this, scan, request, chosen, started](const Result<HeldTree>& held) {
        if (!held) {
          plane_.dropScan(scan->id);
          spdlog::warn("a tree send was refused by its destinations: {}", held.error().message);
          return started(held.error());
        }
        packFor(request, chosen, scan, *held, started);
      });
}

}  // namespace hnow::daemon
