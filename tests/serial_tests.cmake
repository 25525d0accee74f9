# Process tests that assert what hnow measures of links paced by this
# machine's own CPU: beside other tests on 2 cores a probe round may not
# saturate, and a link is then kept as a bound. They run alone, as
# netns.rates_test does. Read by ctest after the discovered tests.
set_tests_properties([=[with --measure-links hnowd surveys the paced links: each within 10% of its pacing, hnowd's own a bound - hnow measure names what it cannot measure]=]
  PROPERTIES RUN_SERIAL TRUE)
