#include <doctest/doctest.h>

#include <string>

#include "conf/manifest.h"

using hnow::conf::parseManifest;

namespace {

const std::string kTwoItems = R"([[item]]
source = "n1"
file = "datasets/a.bin"
dest = "incoming/a.bin"
to = ["n2", "n3"]

[[item]]
source = "n4"
file = "b.bin"
dest = "incoming/b.bin"
to = "all"
)";

std::string errorOf(const std::string& text) {
  auto loaded = parseManifest(text, "m.toml");
  return loaded ? "" : loaded.error().text();
}

std::string item(const std::string& body) { return "[[item]]\n" + body; }

}  // namespace

TEST_CASE("a manifest loads its items in order, `to` as a list or one name, each with its position") {
  auto loaded = parseManifest(kTwoItems, "m.toml");
  REQUIRE(loaded);
  REQUIRE(loaded->items.size() == 2);
  CHECK(loaded->items[0].source == "n1");
  CHECK(loaded->items[0].file == "datasets/a.bin");
  CHECK(loaded->items[0].dest == "incoming/a.bin");
  CHECK(loaded->items[0].to == std::vector<std::string>{"n2", "n3"});
  CHECK(loaded->items[0].where == "m.toml:1:1");
  CHECK(loaded->items[1].to == std::vector<std::string>{"all"});
  CHECK(loaded->items[1].where == "m.toml:7:1");
}

TEST_CASE("a manifest's missing keys are named with the item's position") {
  CHECK(errorOf(item("file = \"a\"\ndest = \"b\"\nto = \"all\"\n")) ==
        "m.toml:1:1: missing key 'source' in [[item]] #1 (the agent whose data root holds the file)");
  CHECK(errorOf(item("source = \"n1\"\ndest = \"b\"\nto = \"all\"\n")).rfind("m.toml:1:1: missing key 'file'", 0) == 0);
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\nto = \"all\"\n")).rfind("m.toml:1:1: missing key 'dest'", 0) == 0);
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\n")).rfind("m.toml:1:1: missing key 'to'", 0) == 0);
  CHECK(errorOf("") == "m.toml:1:1: the manifest has no [[item]] tables; add at least one");
}

TEST_CASE("a manifest's wrong types, empty values and unknown keys point at the value") {
  CHECK(errorOf(item("source = 3\nfile = \"a\"\ndest = \"b\"\nto = \"all\"\n")) ==
        "m.toml:2:10: 'source' in [[item]] #1 must be a string, not an integer");
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\nto = 5\n")) ==
        "m.toml:5:6: 'to' in [[item]] #1 must be a string or a list of strings");
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\nto = []\n")) ==
        "m.toml:5:6: 'to' in [[item]] #1 is empty; name at least one agent or site, or \"all\"");
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\nto = [\"n2\", \"n2\"]\n")) ==
        "m.toml:5:13: 'n2' is listed twice in 'to'");
  CHECK(errorOf(item("source = \"\"\nfile = \"a\"\ndest = \"b\"\nto = \"all\"\n")) ==
        "m.toml:2:10: 'source' in [[item]] #1 cannot be empty");
  CHECK(errorOf(item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\nto = \"all\"\nmode = \"fast\"\n"))
            .rfind("m.toml:6:", 0) == 0);
  CHECK(errorOf("algo = \"ecf\"\n" + item("source = \"n1\"\nfile = \"a\"\ndest = \"b\"\nto = \"all\"\n"))
            .rfind("m.toml:1:", 0) == 0);
  CHECK(errorOf("item = 3\n").rfind("m.toml:1:8: 'item' must be written as [[item]] tables", 0) == 0);
}

TEST_CASE("the example manifest loads") {
  auto loaded = hnow::conf::loadManifest(std::string(HNOW_SOURCE_DIR) + "/examples/manifest.toml");
  REQUIRE_MESSAGE(loaded, (loaded ? "" : loaded.error().text()));
  CHECK(loaded->items.size() == 2);
  CHECK(loaded->items[1].to == std::vector<std::string>{"all"});
}
