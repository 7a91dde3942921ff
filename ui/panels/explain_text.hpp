#pragma once
// The Explain view's text (rich text): how each number of an evaluation is computed, with the
// formulas, their sources and the inputs, so that an instructor can show where a number comes from.
#include <QString>

#include "ui/document/evaluator.hpp"

namespace meshscope::ui {

[[nodiscard]] QString explain_html(const Evaluation& evaluation);

}  // namespace meshscope::ui
