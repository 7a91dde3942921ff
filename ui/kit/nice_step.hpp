#pragma once
// The tick step of every value axis meshscope draws (memory, pipeline, serving, profile charts).

namespace meshscope::ui {

// A 1, 2 or 5 × 10^k step giving about `target` ticks over `span` (> 0); a target below 1 counts as 1.
[[nodiscard]] double nice_step(double span, int target);

}  // namespace meshscope::ui
