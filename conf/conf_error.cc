#include "conf/conf_error.h"

namespace hnow::conf {

std::string ConfError::text() const {
  std::string out = file.empty() ? std::string("<input>") : file;
  if (line > 0) out += ":" + std::to_string(line) + ":" + std::to_string(column);
  return out + ": " + message;
}

}  // namespace hnow::conf
