// The one axis step every chart uses: 1, 2 or 5 × 10^k, the smallest at least span / target.
#include <catch2/catch.hpp>

#include <tuple>

#include "ui/kit/nice_step.hpp"

using Catch::Matchers::WithinRel;

TEST_CASE("nice_step: the step is the smallest 1, 2 or 5 times a power of ten that covers span / target") {
  using Case = std::tuple<double, int, double>;
  const auto [span, target, step] =
      GENERATE(Case{10, 5, 2}, Case{10, 10, 1}, Case{7, 6, 2}, Case{61.2, 6, 20}, Case{0.3, 6, 0.05},
               Case{1234, 5, 500}, Case{100, 4, 50}, Case{999, 1, 1000}, Case{1, 1, 1});
  CHECK_THAT(meshscope::ui::nice_step(span, target), WithinRel(step, 1e-12));
}

TEST_CASE("nice_step: a target below one tick counts as one") {
  CHECK_THAT(meshscope::ui::nice_step(30, 0), WithinRel(50.0, 1e-12));
  CHECK_THAT(meshscope::ui::nice_step(30, -3), WithinRel(50.0, 1e-12));
}

TEST_CASE("nice_step: about `target` ticks fit the span, never fewer than target") {
  const double span = GENERATE(0.7, 3.0, 42.0, 6.02e23);
  const int target = GENERATE(2, 5, 6, 11);
  const double step = meshscope::ui::nice_step(span, target);
  CHECK(step * target >= span * (1 - 1e-12));
  CHECK(step * target < span * 2.5 * (1 + 1e-12));
}
