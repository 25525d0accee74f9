#include <doctest/doctest.h>

#include "core/links/link_book.h"

using namespace hnow;
using namespace hnow::daemon;
using namespace std::chrono_literals;

namespace {

const LinkId kUp{"a", LinkDirection::kUp};
const LinkId kDown{"a", LinkDirection::kDown};

LinkReading saturated(const LinkId& l, double v) { return {l, v, true, 0.0}; }
LinkReading carried(const LinkId& l, double v) { return {l, v, false, 0.0}; }
SurveyFinding capacity(const LinkId& l, double v) { return {l, v, true, 0.0, 1, 0.0}; }
SurveyFinding atLeast(const LinkId& l, double v) { return {l, v, false, 0.0, 0, 0.0}; }

}  // namespace

TEST_CASE("a survey's capacity replaces a link's rate - a change beyond the threshold is a drift event") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({capacity(kUp, 100)}, {kUp}, false);
  REQUIRE(book.rate(kUp));
  CHECK(book.rate(kUp)->method == RateMethod::kProbe);
  CHECK(book.takeChanges().empty());  // the first value is no change
  book.applySurvey({capacity(kUp, 90)}, {kUp}, false);
  CHECK(book.takeChanges().empty());  // 10% < 25%
  book.applySurvey({capacity(kUp, 40)}, {kUp}, false);
  auto changes = book.takeChanges();
  REQUIRE(changes.size() == 1);
  CHECK(changes[0].before == 100);  // what plans were made with
  CHECK(changes[0].after == 40);
}

TEST_CASE("a survey's bound does not undo a capacity it stays within, and raises one it exceeds - a target measured under other traffic is measured again once it has gone") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({capacity(kDown, 400)}, {kDown}, false);
  book.applySurvey({atLeast(kDown, 190)}, {kDown}, true);  // peers busy: could not fill it
  CHECK(book.rate(kDown)->method == RateMethod::kProbe);
  CHECK(book.rate(kDown)->bytesPerSecond == 400);
  CHECK(book.remeasureNow() == std::vector<LinkId>{kDown});  // no other traffic is seen now
  book.noteForeign("a", 0, 100);
  CHECK(book.remeasureNow().empty());  // not while it lasts
  book.remeasured(kDown);
  book.noteForeign("a", 0, 0);
  CHECK(book.remeasureNow().empty());
  book.applySurvey({atLeast(kDown, 600)}, {kDown}, false);
  CHECK(book.rate(kDown)->bound());
  CHECK(book.rate(kDown)->bytesPerSecond == 600);
}

TEST_CASE("passive readings within the threshold confirm a capacity by EWMA - those outside it change it only after the dwell time, and one they lowered is to be probed again") {
  ManualClock clock;
  LinkBookOptions options;
  options.ewmaWeight = 0.5;
  LinkBook book(clock, options);
  book.applySurvey({capacity(kUp, 100)}, {kUp}, false);
  book.observe({saturated(kUp, 90)});
  CHECK(book.rate(kUp)->bytesPerSecond == doctest::Approx(95));
  CHECK(book.samples(kUp) == 2);
  CHECK(book.rate(kUp)->spread == doctest::Approx(10.0 / 95));
  for (int i = 0; i < 4; ++i) {
    clock.advance(600ms);
    book.observe({saturated(kUp, 40)});
  }
  CHECK(book.rate(kUp)->bytesPerSecond == doctest::Approx(95));  // 1.8 s since the first < 2 s
  clock.advance(600ms);
  book.observe({saturated(kUp, 42)});
  CHECK(book.rate(kUp)->bytesPerSecond == doctest::Approx(40));  // the run's median
  CHECK(book.rate(kUp)->method == RateMethod::kPassive);
  REQUIRE(book.takeChanges().size() == 1);
  // Lowered by passive readings: a probe is to say whether the link or the node's CPU was slow.
  CHECK(book.remeasureNow() == std::vector<LinkId>{kUp});
  book.remeasured(kUp);
  CHECK(book.remeasureNow().empty());
  // Raised by them: nothing to doubt.
  for (int i = 0; i < 5; ++i) {
    clock.advance(600ms);
    book.observe({saturated(kUp, 80)});
  }
  CHECK(book.rate(kUp)->bytesPerSecond == doctest::Approx(80));
  CHECK(book.remeasureNow().empty());
}

TEST_CASE("a disagreeing run broken by a gap without readings starts over - a share below the link says nothing") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({capacity(kUp, 100)}, {kUp}, false);
  book.observe({saturated(kUp, 40)});
  clock.advance(5s);
  book.observe({saturated(kUp, 40)});
  CHECK(book.rate(kUp)->bytesPerSecond == 100);
  book.observe({carried(kDown, 5)});  // a share on a link not known yet: a bound
  CHECK(book.rate(kDown)->bound());
  book.applySurvey({capacity(kDown, 400)}, {kDown}, false);
  book.takeChanges();
  for (int i = 0; i < 10; ++i) {
    clock.advance(1s);
    book.observe({carried(kDown, 50)});
  }
  CHECK(book.rate(kDown)->bytesPerSecond == 400);
  CHECK(book.takeChanges().empty());
}

TEST_CASE("emulated and configured rates are exact: surveys and readings near them leave them alone, until the pacing stops") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.setFixed(kUp, 50, RateMethod::kEmulated);
  book.setFixed(kDown, 50, RateMethod::kConfigured);
  book.applySurvey({capacity(kUp, 10)}, {kUp}, false);
  for (int i = 0; i < 10; ++i) {
    clock.advance(1s);
    book.observe({saturated(kUp, 40), saturated(kDown, 10)});  // a paced link reads near its pace
  }
  CHECK(book.rate(kUp)->bytesPerSecond == 50);
  CHECK(book.rate(kUp)->method == RateMethod::kEmulated);
  CHECK(book.rate(kDown)->bytesPerSecond == 50);  // hnowd's own config is not doubted
  CHECK(book.measured().empty());  // not kept in state/: told again at start
  book.setFixed(kUp, 20, RateMethod::kEmulated);  // set-rate
  REQUIRE(book.takeChanges().size() == 1);
  book.clearFixed(kUp);
  CHECK(book.rate(kUp) == nullptr);  // to be measured
}

TEST_CASE("an agent that tells 100 times the uplink it achieves is planned with what it achieves, flagged, and its telling again changes nothing") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.setFixed(kUp, 1000, RateMethod::kEmulated);
  // A burst under the told rate is not yet a lie; readings that are not the
  // link's limit (a share smaller than it) never are.
  clock.advance(1s);
  book.observe({saturated(kUp, 10)});
  for (int i = 0; i < 5; ++i) {
    clock.advance(1s);
    book.observe({carried(kUp, 10)});
  }
  CHECK(book.rate(kUp)->method == RateMethod::kEmulated);
  for (int i = 0; i < 3; ++i) {
    clock.advance(1s);
    book.observe({saturated(kUp, 10 + i)});
  }
  REQUIRE(book.rate(kUp));
  CHECK(book.rate(kUp)->bytesPerSecond == 11);  // the median of what it achieved
  CHECK(book.rate(kUp)->method == RateMethod::kPassive);
  CHECK(book.rate(kUp)->toldBytesPerSecond == 1000);
  auto changes = book.takeChanges();
  REQUIRE(changes.size() == 1);  // plans made from now on are made again
  CHECK(changes[0].after == 11);
  book.setFixed(kUp, 1000, RateMethod::kEmulated);  // its next report
  CHECK(book.rate(kUp)->bytesPerSecond == 11);
  CHECK_FALSE(book.fixed(kUp));
  // From now on it is measured like any real link.
  book.applySurvey({capacity(kUp, 12)}, {kUp}, false);
  CHECK(book.rate(kUp)->bytesPerSecond == 12);
  CHECK(book.rate(kUp)->toldBytesPerSecond == 1000);
  book.forget("a");
  CHECK(book.rate(kUp) == nullptr);
}

TEST_CASE("a told link paced low by hnowd for a send reads at its pace, and is not taken for a lie") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.setFixed(kUp, 100, RateMethod::kEmulated);
  book.pace(kUp, 20);
  for (int i = 0; i < 10; ++i) {
    clock.advance(1s);
    book.observe({saturated(kUp, 19)});
  }
  CHECK(book.rate(kUp)->method == RateMethod::kEmulated);
  CHECK(book.rate(kUp)->bytesPerSecond == 100);
}

TEST_CASE("other traffic lowers what is available while it lasts, to half the link at most") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({capacity(kUp, 100), capacity(kDown, 400)}, {kUp, kDown}, false);
  book.noteForeign("a", 3, 300);  // 3% on the uplink is noise
  CHECK(book.foreign(kUp) == 0);
  CHECK(book.available(kUp) == 100);
  CHECK(book.available(kDown) == 200);
  book.noteForeign("a", 30, 100);
  CHECK(book.available(kUp) == 70);
  CHECK(book.available(kDown) == 300);
  clock.advance(4s);  // nothing heard since: gone
  CHECK(book.available(kDown) == 400);
  CHECK(book.takeChanges().empty());  // capacities never moved
}

TEST_CASE("a paced link: readings near its pace and survey findings are the pacing's - one far below it still drifts the link") {
  ManualClock clock;
  LinkBook book(clock, {});
  book.applySurvey({capacity(kUp, 100)}, {kUp}, false);
  book.pace(kUp, 97);
  CHECK(book.paced(kUp));
  for (int i = 0; i < 6; ++i) {
    clock.advance(600ms);
    book.observe({saturated(kUp, 80)});  // within the threshold of the pace: its children's shares
  }
  CHECK(book.rate(kUp)->bytesPerSecond == 100);
  CHECK(book.samples(kUp) == 1);
  book.applySurvey({capacity(kUp, 90)}, {kUp}, false);
  CHECK(book.rate(kUp)->bytesPerSecond == 100);
  // Cut to 40: the link cannot carry even the pace.
  for (int i = 0; i < 6; ++i) {
    clock.advance(600ms);
    book.observe({saturated(kUp, 40)});
  }
  CHECK(book.rate(kUp)->bytesPerSecond == doctest::Approx(40));
  CHECK(book.takeChanges().size() == 1);
  book.pace(kUp, 0);
  CHECK_FALSE(book.paced(kUp));
  const int before = book.samples(kUp);
  clock.advance(600ms);
  book.observe({saturated(kUp, 39)});
  CHECK(book.samples(kUp) == before + 1);  // readings near the capacity count again
}
