#pragma once
// Every problem in a user's file is reported as one line that names the
// file, the line and the column, like a compiler does.
#include <string>

#include "planner/outcome.h"

namespace hnow::conf {

struct ConfError {
  std::string message;
  std::string file;
  int line = 0;
  int column = 0;
  // "file:line:column: message"
  std::string text() const;
};

template <class T>
using Loaded = planner::Outcome<T, ConfError>;

}  // namespace hnow::conf
