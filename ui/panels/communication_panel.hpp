#pragma once
// The communication view: the collectives of the current layout, of one mesh axis or all, and
// what each axis adds to the step after overlap. The axis chosen here is also the one the
// topology editor's communication map shows (axisChanged).
#include <QWidget>

#include <optional>

#include "core/topology/placement.hpp"
#include "ui/document/evaluator.hpp"

class QComboBox;
class QLabel;
class QSortFilterProxyModel;

namespace meshscope::ui {

class CommTableModel;

class CommunicationPanel final : public QWidget {
  Q_OBJECT

 public:
  // Shows each of `evaluator`'s evaluations.
  explicit CommunicationPanel(Evaluator* evaluator, QWidget* parent = nullptr);

  void showEvaluation(const Evaluation& evaluation);

 signals:
  // nullopt: every axis.
  void axisChanged(std::optional<meshscope::MeshAxis> axis);
  // "Show on the topology".
  void showMapRequested();

 private:
  CommTableModel* model_ = nullptr;
  QSortFilterProxyModel* proxy_ = nullptr;
  QLabel* exposed_ = nullptr;
  QComboBox* axis_ = nullptr;
};

}  // namespace meshscope::ui
