#include "core/tree_held.h"

#include "core/agent_answers.h"

namespace hnow::daemon {

namespace {

using Missing = std::shared_ptr<std::vector<bool>>;

// Part `part` of the index and the ones after it, one call at a time (each
// fits a message); `answer` with the files this agent lacks.
void askFrom(AgentLink& link, const std::string& dest, std::shared_ptr<const TreeScan> scan, std::size_t part,
             Missing missing, std::function<void(const Result<std::vector<bool>>&)> answer) {
  if (part == scan->queries.size()) return answer(*missing);
  link.treeHeld(dest, scan->queries[part],
                [&link, dest, scan, part, missing, answer](const Result<std::vector<std::uint32_t>>& said) {
                  if (!said) return answer(said.error());
                  const std::vector<std::int64_t>& ordinals = scan->ordinals[part];
                  for (std::uint32_t o : *said) {
                    if (o >= ordinals.size() || ordinals[o] < 0)
                      return answer(Error{"named entry " + std::to_string(o) + " of a part of the index as a "
                                          "missing file, and it is not one"});
                    (*missing)[static_cast<std::size_t>(ordinals[o])] = true;
                  }
                  askFrom(link, dest, scan, part + 1, missing, answer);
                });
}

}  // namespace

void askMissing(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
                const std::string& dest, std::shared_ptr<const TreeScan> scan, MissingDone done) {
  askAgents<std::vector<bool>>(
      agents, linkOf,
      [dest, scan](AgentLink& link, std::size_t, std::function<void(const Result<std::vector<bool>>&)> answer) {
        askFrom(link, dest, scan, 0, std::make_shared<std::vector<bool>>(scan->entries, false), answer);
      },
      [agents, entries = scan->entries, done](std::vector<Result<std::vector<bool>>> answers) {
        std::string refusals;
        std::vector<bool> any(entries, false);
        for (std::size_t i = 0; i < answers.size(); ++i) {
          if (!answers[i]) {
            refusals += (refusals.empty() ? "" : "; ") + agents[i] + ": " + answers[i].error().message;
            continue;
          }
          for (std::size_t k = 0; k < entries; ++k) any[k] = any[k] || (*answers[i])[k];
        }
        if (!refusals.empty()) return done(Error{"refused: " + refusals});
        done(any);
      });
}

}  // namespace hnow::daemon
