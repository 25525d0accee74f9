#pragma once
// A Result that comes later, on the kj thread. Held by kj::Own: GCC 12
// warns falsely about a std::optional or a std::variant with strings inside
// kj's ExceptionOr (-Wmaybe-uninitialized), as about vectors there.
#include <kj/async.h>

#include <utility>

#include "base/result.h"

namespace hnow::agent {

template <class T>
using LaterResult = kj::Promise<kj::Own<Result<T>>>;

template <class T>
kj::Own<Result<T>> held(Result<T> result) {
  return kj::heap<Result<T>>(std::move(result));
}

}  // namespace hnow::agent
