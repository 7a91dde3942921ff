#pragma once
// Keeps the topology editor on the project's cluster. The editor edits a copy of its own (its
// TopologyDocument, with positions), its commands on the project's one history: after each of them the
// project adopts the drawn cluster (ProjectDocument::adoptDrawnCluster). A new project or a cluster
// chosen elsewhere (a generator, an import, their undo or redo) is loaded into the editor; a generated
// cluster once the evaluation has resolved it. The evaluation's communication map is drawn on it while
// the editor shows the evaluated cluster.
#include <QObject>

#include "ui/document/project_document.hpp"

namespace meshscope {
struct Evaluation;
}

namespace meshscope::ui {

class Evaluator;
class TopologyEditor;

class TopologyLink final : public QObject {
  Q_OBJECT

 public:
  TopologyLink(TopologyEditor* editor, ProjectDocument* document, Evaluator* evaluator, QObject* parent = nullptr);

 private:
  void onDocumentChanged(ProjectDocument::Change change);
  void onEvaluated(const Evaluation& evaluation);
  void load(const Cluster& cluster, const Project& project);

  TopologyEditor* editor_;
  ProjectDocument* document_;
  bool editor_needs_cluster_ = true;  // the editor shows another cluster than the project's
  bool loading_cluster_ = false;      // setCluster in progress: its clusterChanged is not an edit
};

}  // namespace meshscope::ui
