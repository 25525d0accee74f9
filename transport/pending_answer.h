#pragma once
// hnowd's core services answer once, through a callback with a Result; the
// RPC glue waits for that answer as a promise: fulfilled with the value,
// rejected with the Error's sentence (rpc_errors.h). An answer that comes
// after the client went away is dropped. A value comes held by kj::Own:
// GCC 12 warns falsely about vectors inside kj's ExceptionOr.
#include <kj/async.h>

#include <functional>
#include <memory>
#include <type_traits>

#include "base/result.h"
#include "transport/rpc_errors.h"

namespace hnow::transport {

template <class T>
using Held = std::conditional_t<std::is_void_v<T>, void, kj::Own<T>>;

template <class T>
struct PendingAnswer {
  kj::Promise<Held<T>> promise;
  std::function<void(const Result<T>&)> answer;
};

template <class T>
PendingAnswer<T> pendingAnswer() {
  auto paf = kj::newPromiseAndFulfiller<Held<T>>();
  auto fulfiller = std::make_shared<kj::Own<kj::PromiseFulfiller<Held<T>>>>(kj::mv(paf.fulfiller));
  auto answer = [fulfiller](const Result<T>& result) {
    if (!(*fulfiller)->isWaiting()) return;
    if (!result) return (*fulfiller)->reject(refusal(result.error().message));
    if constexpr (std::is_void_v<T>) (*fulfiller)->fulfill();
    else (*fulfiller)->fulfill(kj::heap<T>(*result));
  };
  return {kj::mv(paf.promise), answer};
}

}  // namespace hnow::transport
