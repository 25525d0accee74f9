// What hnowd knows of the links (core/links/link_knowledge.h): told links
// taken as told or measured, measured links written only when they change
// and restored at their age, a machine forgotten with its links.
#include <doctest/doctest.h>

#include "core/links/link_knowledge.h"
#include "memory_state_store.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

TEST_CASE("an emulated link is taken as told, or measured like a real one when the options say so") {
  ManualClock clock;
  LinkKnowledge told(clock, LinkOptions{});
  told.emulated("a1", {50e6, 0.0});
  CHECK(told.book().fixed({"a1", LinkDirection::kUp}));
  CHECK_FALSE(told.book().fixed({"a1", LinkDirection::kDown}));  // 0: a real link
  CHECK(told.view("a1", LinkDirection::kUp).rate.bytesPerSecond == doctest::Approx(50e6));
  told.emulated("a1", {});  // the agent no longer paces
  CHECK_FALSE(told.book().fixed({"a1", LinkDirection::kUp}));

  LinkOptions measure;
  measure.measureEmulated = true;
  LinkKnowledge measured(clock, measure);
  measured.emulated("a1", {50e6, 0.0});
  CHECK_FALSE(measured.book().fixed({"a1", LinkDirection::kUp}));
}

TEST_CASE("a measured link is written when it changes, restored at its age, and forgotten with its machine") {
  ManualClock clock;
  MemoryStateStore store;
  {
    LinkKnowledge first(clock, LinkOptions{});
    first.book().adopt({{"a1", LinkDirection::kDown}, 12e6, true, 0.0});
    REQUIRE(first.persist(store));
  }
  auto rows = store.loadLinks();
  REQUIRE(rows);
  REQUIRE(rows->size() == 1);
  CHECK(rows->front().node == "a1");
  CHECK(rows->front().direction == "downlink");
  CHECK(rows->front().bytesPerSecond == doctest::Approx(12e6));

  clock.advance(90s);
  LinkKnowledge second(clock, LinkOptions{});
  REQUIRE(second.restore(store));
  const LinkView down = second.view("a1", LinkDirection::kDown);
  CHECK(down.rate.bytesPerSecond == doctest::Approx(12e6));
  CHECK(down.ageSeconds == doctest::Approx(90.0));

  // Unchanged since restored: not written again (a row edited behind its
  // back stays as edited).
  StoredLink edited = rows->front();
  edited.bytesPerSecond = 1.0;
  REQUIRE(store.saveLinks({edited}));
  REQUIRE(second.persist(store));
  CHECK(store.loadLinks()->front().bytesPerSecond == doctest::Approx(1.0));
  // Measured again: written.
  second.book().adopt({{"a1", LinkDirection::kDown}, 30e6, true, 0.0});
  REQUIRE(second.persist(store));
  CHECK(store.loadLinks()->front().bytesPerSecond == doctest::Approx(30e6));

  second.forget("a1");
  CHECK(second.book().rate({"a1", LinkDirection::kDown}) == nullptr);
}

TEST_CASE("a link its agent's transfers belied stays belied across a restart: what the agent tells is not believed again") {
  ManualClock clock;
  MemoryStateStore store;
  // What the last hnowd kept: measured at 11 B/s, told 1000.
  REQUIRE(store.saveLinks({{"a1", "uplink", 11.0, "passive", clock.wallNow(), 0.0, 1000.0}}));
  LinkKnowledge restarted(clock, LinkOptions{});
  REQUIRE(restarted.restore(store));
  const LinkId up{"a1", LinkDirection::kUp};
  restarted.book().setFixed(up, 1000.0, RateMethod::kEmulated);  // the agent logs in and tells it again
  REQUIRE(restarted.book().rate(up));
  CHECK(restarted.book().rate(up)->bytesPerSecond == doctest::Approx(11.0));
  CHECK(restarted.book().rate(up)->toldBytesPerSecond == doctest::Approx(1000.0));
  CHECK_FALSE(restarted.book().fixed(up));
  // Measured again, it is written with what was told.
  restarted.book().adopt({up, 12.0, true, 0.0});
  REQUIRE(restarted.persist(store));
  CHECK(store.loadLinks()->front().toldBytesPerSecond == doctest::Approx(1000.0));
}
