#include "ui/panels/explain_view.hpp"

#include <memory>

#include "ui/document/evaluator.hpp"
#include "ui/panels/explain_text.hpp"

namespace meshscope::ui {

ExplainView::ExplainView(Evaluator* evaluator, QWidget* parent) : QTextBrowser(parent) {
  setObjectName(QStringLiteral("explain"));
  setOpenExternalLinks(true);
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { setHtml(explain_html(*evaluation)); });
}

}  // namespace meshscope::ui
