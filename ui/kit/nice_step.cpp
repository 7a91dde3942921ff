#include "ui/kit/nice_step.hpp"

#include <algorithm>
#include <cmath>

namespace meshscope::ui {

double nice_step(double span, int target) {
  const double raw = span / std::max(target, 1);
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double factor : {1.0, 2.0, 5.0})
    if (factor * power >= raw) return factor * power;
  return 10.0 * power;
}

}  // namespace meshscope::ui
