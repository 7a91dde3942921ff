#pragma once
// The Explain view: how each number of the latest evaluation is computed (ui/panels/explain_text.hpp), with
// the formulas, their sources and the inputs; links open in the browser.
#include <QTextBrowser>

namespace meshscope::ui {

class Evaluator;

class ExplainView final : public QTextBrowser {
  Q_OBJECT

 public:
  explicit ExplainView(Evaluator* evaluator, QWidget* parent = nullptr);
};

}  // namespace meshscope::ui
