#pragma once
// What every fuzz target asserts beyond "no crash, no sanitizer report":
// a broken promise aborts with a message, so libFuzzer keeps the input.
#include <cstdio>
#include <cstdlib>

#define HNOW_FUZZ_CHECK(condition, what)                                                    \
  do {                                                                                      \
    if (!(condition)) {                                                                     \
      std::fprintf(stderr, "%s:%d: broken promise: %s (%s)\n", __FILE__, __LINE__, what,    \
                   #condition);                                                             \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)
