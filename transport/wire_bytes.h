#pragma once
// Bytes on the wire (Cap'n Proto Data) as hnow keeps tokens, digests and
// indexes (std::string), and back: one conversion for every codec and
// RPC glue file.
#include <capnp/blob.h>

#include <string>
#include <string_view>

namespace hnow::transport {

inline std::string stringOf(capnp::Data::Reader data) {
  return std::string(reinterpret_cast<const char*>(data.begin()), data.size());
}

inline capnp::Data::Reader dataOf(std::string_view bytes) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(bytes.data()), bytes.size());
}

}  // namespace hnow::transport
