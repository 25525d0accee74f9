#pragma once
// Errors that cross the wire to a person: a plain sentence, without kj's
// "expected <condition>;" or "remote exception:" decorations.
#include <kj/exception.h>

#include <string>
#include <utility>

#include "base/result.h"

namespace hnow::transport {

// The exception that fails an RPC call with `message` as its whole description.
inline kj::Exception refusal(const std::string& message) {
  return kj::Exception(kj::Exception::Type::FAILED, __FILE__, __LINE__, kj::heapString(message));
}

// Fails the current RPC call with `message` as the whole description.
[[noreturn]] inline void refuse(const std::string& message) { throw refusal(message); }

// The RPC boundary: logic below it answers a Result, and only the server
// method that answers the peer turns an Error into the failed call (its
// message the whole description, as refuse() does).
template <class T>
T valueOrRefuse(Result<T> result) {
  if (!result) refuse(result.error().message);
  return std::move(result).value();
}
inline void okOrRefuse(const Result<void>& result) {
  if (!result) refuse(result.error().message);
}

// The sentence of an exception, as a client shows it.
inline std::string describe(const kj::Exception& e) {
  std::string text = e.getDescription().cStr();
  const std::string remote = "remote exception: ";
  if (text.rfind(remote, 0) == 0) text.erase(0, remote.size());
  return text;
}

}  // namespace hnow::transport
