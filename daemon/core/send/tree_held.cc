#include "core/send/tree_held.h"

#include "core/send/agent_answers.h"

namespace hnow::daemon {

namespace {

using Answer = std::function<void(const Result<HeldTree>&)>;

// One agent's questions: `queries` part by part (each fits a message), one
// call at a time, into `held`; `sameSize` gathers the scan entries it has
// with the same size and another mtime. Then `answer`.
struct Asking {
  AgentLink* link;
  std::string dest;
  std::shared_ptr<const TreeQueries> queries;
  std::shared_ptr<HeldTree> held;
  std::shared_ptr<std::vector<std::size_t>> sameSize;
};

void askFrom(Asking asking, std::size_t part, std::function<void(const Result<void>&)> answer) {
  if (part == asking.queries->parts.size()) return answer(Result<void>{});
  const std::string& index = asking.queries->parts[part];
  asking.held->queryBytes += index.size();
  asking.link->treeHeld(asking.dest, index, [asking, part, answer](const Result<AgentLink::HeldAnswer>& said) {
    if (!said) return answer(said.error());
    const std::vector<std::int64_t>& ordinals = asking.queries->ordinals[part];
    auto scanEntry = [&](std::uint32_t o) -> std::int64_t {
      return o < ordinals.size() ? ordinals[o] : -1;
    };
    for (std::uint32_t o : said->missing) {
      if (scanEntry(o) < 0)
        return answer(Error{"named entry " + std::to_string(o) + " of a part of the index as a missing file, "
                            "and it is not one"});
      asking.held->missing[static_cast<std::size_t>(scanEntry(o))] = true;
    }
    for (std::uint32_t o : said->sameSize) {
      if (scanEntry(o) < 0)
        return answer(Error{"named entry " + std::to_string(o) + " of a part of the index as a file of the same "
                            "size, and it is not one"});
      asking.sameSize->push_back(static_cast<std::size_t>(scanEntry(o)));
    }
    askFrom(asking, part + 1, answer);
  });
}

// One agent, both rounds: the files it has with another mtime are asked
// about again with their digests; those it still lacks are missing, the
// rest it holds by digest.
void askAgent(AgentLink& link, const std::string& dest, const std::shared_ptr<const TreeScan>& scan,
              const DigestQueries& again, Answer answer) {
  auto first = std::make_shared<TreeQueries>(TreeQueries{scan->queries, scan->ordinals});
  auto held = std::make_shared<HeldTree>();
  held->missing.assign(scan->entries, false);
  held->byDigest.assign(scan->entries, false);
  Asking asking{&link, dest, first, held, std::make_shared<std::vector<std::size_t>>()};
  askFrom(asking, 0, [asking, again, answer](const Result<void>& asked) {
    if (!asked) return answer(asked.error());
    if (asking.sameSize->empty()) return answer(*asking.held);
    auto second = again(*asking.sameSize);
    if (!second) return answer(second.error());
    Asking digests{asking.link, asking.dest, std::make_shared<const TreeQueries>(std::move(second).value()),
                   asking.held, std::make_shared<std::vector<std::size_t>>()};
    askFrom(digests, 0, [digests, files = asking.sameSize, answer](const Result<void>& asked) {
      if (!asked) return answer(asked.error());
      for (std::size_t k : *files)
        if (!digests.held->missing[k]) digests.held->byDigest[k] = true;
      answer(*digests.held);
    });
  });
}

}  // namespace

void askMissing(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::shared_ptr<const TreeScan> scan, DigestQueries again,
                MissingDone done) {
  askAgents<HeldTree>(
      agents, linkOf,
      [dest, scan, again](AgentLink& link, std::size_t, Answer answer) { askAgent(link, dest, scan, again, answer); },
      [agents, entries = scan->entries, done](std::vector<Result<HeldTree>> answers) {
        std::string refusals;
        HeldTree any;
        any.missing.assign(entries, false);
        any.byDigest.assign(entries, false);
        for (std::size_t i = 0; i < answers.size(); ++i) {
          if (!answers[i]) {
            refusals += (refusals.empty() ? "" : "; ") + agents[i] + ": " + answers[i].error().message;
            continue;
          }
          const HeldTree& one = *answers[i];
          for (std::size_t k = 0; k < entries; ++k) {
            any.missing[k] = any.missing[k] || one.missing[k];
            any.byDigest[k] = any.byDigest[k] || one.byDigest[k];
          }
          any.queryBytes += one.queryBytes;
          any.agentMissing.push_back(one.missing);
        }
        if (!refusals.empty()) return done(Error{"refused: " + refusals});
        done(any);
      });
}

}  // namespace hnow::daemon
