#pragma once
// The trade-off explorer's click (ui/explore/tradeoff_view.hpp): the value of an axis (or a heat-map cell's two values)
// applied to the project as one undoable step named for it ("Trade-off: TP 4"). The project after the step is
// the explorer's varied project (core apply_tradeoff_value), so what was clicked is what the views then show.
#include <QString>
#include <QUndoCommand>

#include "core/project/project.hpp"
#include "ui/document/project_commands.hpp"

namespace meshscope::ui {

// What an axis other than dp and gpus changes: the layout and the workload.
struct TradeoffChoicePart {
  struct Value {
    Layout layout;
    TrainingWorkload training;
  };
  static constexpr auto kChange = ProjectDocument::Change::project;
  static Value get(const Project& p) { return {p.layout, p.training}; }
  static void set(Project& p, const Value& v) {
    p.layout = v.layout;
    p.training = v.training;
  }
};

class ApplyTradeoffChoice final : public SetPartCommand<TradeoffChoicePart> {
 public:
  ApplyTradeoffChoice(ProjectDocument* document, const Project& varied, const QString& what)
      : SetPartCommand(document, {varied.layout, varied.training}, QObject::tr("Trade-off: %1").arg(what)) {}
};

// The dp and gpus axes resize the cluster too: everything but the name and the view state.
class ApplyTradeoffCluster final : public SetPartCommand<ProjectContentPart> {
 public:
  ApplyTradeoffCluster(ProjectDocument* document, const Project& varied, const QString& what)
      : SetPartCommand(document, varied, QObject::tr("Trade-off: %1").arg(what)) {}
};

// The command for `varied` (the document's project with one or two axis values applied).
[[nodiscard]] inline QUndoCommand* apply_tradeoff_command(ProjectDocument* document, const Project& varied,
                                                          const QString& what) {
  const Project& now = document->project();
  if (varied.cluster != now.cluster || varied.gpu_count != now.gpu_count)
    return new ApplyTradeoffCluster(document, varied, what);
  return new ApplyTradeoffChoice(document, varied, what);
}

}  // namespace meshscope::ui
