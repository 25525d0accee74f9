#include "base/host_key.h"

#include <doctest/doctest.h>

namespace hnow {

TEST_CASE("a host key is one per machine and network namespace, and hides the machine ID") {
  const std::string key = hostKeyOf("5f1c0a8e3b2d4c6e9a7b1d2f3e4a5b6c", "net:[4026531840]");
  CHECK(key.size() == 16);
  CHECK(plainHostKey(key));
  CHECK(key.find("5f1c0a8e") == std::string::npos);
  CHECK(hostKeyOf("5f1c0a8e3b2d4c6e9a7b1d2f3e4a5b6c", "net:[4026531840]") == key);
  CHECK(hostKeyOf("5f1c0a8e3b2d4c6e9a7b1d2f3e4a5b6c", "net:[4026532301]") != key);
  CHECK(hostKeyOf("0000000000000000000000000000000a", "net:[4026531840]") != key);
  // The two fields do not run into each other.
  CHECK(hostKeyOf("ab", "c") != hostKeyOf("a", "bc"));
  CHECK(hostKeyOf("", "").empty());
}

TEST_CASE("this process has a host key, the same when asked twice") {
  const std::string key = hostKey();
  CHECK(plainHostKey(key));
  CHECK(hostKey() == key);
}

TEST_CASE("hnowd takes only plain host keys from agents") {
  CHECK(plainHostKey("0123456789abcdef"));
  CHECK_FALSE(plainHostKey(""));
  CHECK_FALSE(plainHostKey("0123456789ABCDEF"));
  CHECK_FALSE(plainHostKey("host\n<4>forged"));
  CHECK_FALSE(plainHostKey(std::string(33, 'a')));
}

}  // namespace hnow
