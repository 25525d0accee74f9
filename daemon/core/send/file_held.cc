#include "core/send/file_held.h"

#include <memory>

#include "core/send/agent_answers.h"

namespace hnow::daemon {

namespace {

using Holding = AgentLink::DestHolding;
using Answer = AgentLink::FileHolding;

// Every agent's answer in order, or the refusals joined.
Result<std::vector<Answer>> joined(const std::vector<std::string>& agents, const std::vector<Result<Answer>>& answers) {
  std::string refusals;
  std::vector<Answer> out;
  for (std::size_t i = 0; i < answers.size(); ++i) {
    if (!answers[i]) {
      refusals += (refusals.empty() ? "" : "; ") + agents[i] + ": " + answers[i].error().message;
      continue;
    }
    out.push_back(*answers[i]);
  }
  if (!refusals.empty()) return Error{refusals};
  return out;
}

void ask(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
         const std::string& dest, std::uint64_t size, const std::string& sha256,
         std::function<void(const Result<std::vector<Answer>>&)> done) {
  askAgents<Answer>(
      agents, linkOf,
      [dest, size, sha256](AgentLink& link, std::size_t, std::function<void(const Result<Answer>&)> answer) {
        link.fileHeld(dest, size, sha256, answer);
      },
      [agents, done](std::vector<Result<Answer>> answers) { done(joined(agents, answers)); });
}

}  // namespace

void askHolding(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::uint64_t size, FileDigest digest, HoldingDone done) {
  ask(agents, linkOf, dest, size, "", [agents, linkOf, dest, size, digest, done](const Result<std::vector<Answer>>& first) {
    if (!first) return done(first.error());
    auto held = std::make_shared<HeldAtDest>();
    std::vector<std::string> again;
    for (std::size_t i = 0; i < agents.size(); ++i) {
      switch ((*first)[i].holding) {
        case Holding::kAbsent: break;
        // The same size at dest, or elsewhere under its root: asked again with the digest.
        case Holding::kSameSize: again.push_back(agents[i]); break;
        // Not asked for a digest, an agent cannot say kSame: taken as a different file.
        case Holding::kOther: case Holding::kSame: held->other.push_back(agents[i]); break;
      }
    }
    if (again.empty()) return done(*held);
    digest([again, linkOf, dest, size, held, done](const Result<std::string>& sha256) {
      if (!sha256) return done(sha256.error());
      held->sha256 = *sha256;
      ask(again, linkOf, dest, size, *sha256, [again, held, done](const Result<std::vector<Answer>>& second) {
        if (!second) return done(second.error());
        for (std::size_t i = 0; i < again.size(); ++i) {
          const Answer& a = (*second)[i];
          if (a.holding == Holding::kSame) {
            held->same.push_back(again[i]);
            continue;
          }
          // Asked with the digest, kSameSize cannot come back: taken as a different file.
          if (a.holding != Holding::kAbsent) held->other.push_back(again[i]);
          if (!a.heldAt.empty()) held->elsewhere.push_back({again[i], a.heldAt});
        }
        done(*held);
      });
    });
  });
}

std::string refusalToReplace(const std::vector<std::string>& other, const std::string& dest) {
  if (other.empty()) return "";
  std::string names;
  for (const std::string& a : other) names += (names.empty() ? "" : ", ") + a;
  return (other.size() == 1 ? names + " holds" : names + " hold") + " a different file at " + dest +
         "; nothing was sent. Send with --force to replace it, or choose another --dest";
}

}  // namespace hnow::daemon
