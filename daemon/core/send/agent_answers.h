#pragma once
// The prepare step of a send or a manifest asks several agents at once
// (where will you write this file? can you serve that one?) and goes on
// once every one has answered. askAgents asks each named agent through its
// link, counts a missing link as the answer "not connected", and calls
// `all` once, with the answers in the order asked.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/result.h"
#include "core/agent_link.h"

namespace hnow::daemon {

// One callback per answer to come; `all` runs when the last has come
// (at once when `count` is 0). Each callback counts once.
template <class T>
std::vector<std::function<void(const Result<T>&)>> gatherAnswers(std::size_t count,
                                                                 std::function<void(std::vector<Result<T>>)> all) {
  struct Pending {
    std::vector<std::optional<Result<T>>> answers;
    std::size_t missing = 0;
    std::function<void(std::vector<Result<T>>)> all;
  };
  auto pending = std::make_shared<Pending>();
  pending->answers.resize(count);
  pending->missing = count;
  pending->all = std::move(all);
  std::vector<std::function<void(const Result<T>&)>> slots;
  for (std::size_t i = 0; i < count; ++i)
    slots.push_back([pending, i](const Result<T>& answer) {
      if (pending->answers[i]) return;
      pending->answers[i] = answer;
      if (--pending->missing > 0) return;
      std::vector<Result<T>> answers;
      for (auto& a : pending->answers) answers.push_back(std::move(*a));
      pending->all(std::move(answers));
    });
  if (count == 0) pending->all({});
  return slots;
}

// `ask(link, i, answer)` for the i-th agent of `agents`.
template <class T>
void askAgents(const std::vector<std::string>& agents, const std::function<AgentLink*(const std::string&)>& linkOf,
               const std::function<void(AgentLink&, std::size_t, std::function<void(const Result<T>&)>)>& ask,
               std::function<void(std::vector<Result<T>>)> all) {
  auto slots = gatherAnswers<T>(agents.size(), std::move(all));
  for (std::size_t i = 0; i < agents.size(); ++i) {
    if (AgentLink* link = linkOf(agents[i]))
      ask(*link, i, slots[i]);
    else
      slots[i](Error{"not connected"});
  }
}

}  // namespace hnow::daemon
