#include "ui/topology/topology_link.hpp"

#include <memory>

#include "ui/document/evaluator.hpp"
#include "ui/document/project_document.hpp"
#include "ui/topology/topology_editor.hpp"

namespace meshscope::ui {

TopologyLink::TopologyLink(TopologyEditor* editor, ProjectDocument* document, Evaluator* evaluator, QObject* parent)
    : QObject(parent), editor_(editor), document_(document) {
  // The editor's edits are steps of the project's history; after each, the drawn cluster is the project's.
  connect(editor_, &TopologyEditor::clusterChanged, this, [this] {
    if (loading_cluster_) return;  // the editor shows the project's cluster; nothing was edited
    document_->adoptDrawnCluster(editor_->cluster());
  });
  connect(document_, &ProjectDocument::changed, this, &TopologyLink::onDocumentChanged);
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { onEvaluated(*evaluation); });
}

void TopologyLink::onDocumentChanged(ProjectDocument::Change change) {
  if (change == ProjectDocument::Change::reset) {
    editor_needs_cluster_ = true;  // the new project's, once evaluated
    return;
  }
  if (change != ProjectDocument::Change::cluster) return;
  // A cluster chosen elsewhere (a generator, an import, their undo or redo) replaces the one in
  // the editor at once: the topology steps next to this one in the history were made on it.
  const Project& project = document_->project();
  if (project.cluster_inline) {
    load(*project.cluster_inline, project);
  } else if (Result<Cluster> cluster = project_cluster(project)) {
    load(*cluster, project);
  } else {
    editor_needs_cluster_ = true;  // the evaluation says why it does not resolve
  }
}

void TopologyLink::onEvaluated(const Evaluation& e) {
  if (editor_needs_cluster_ && e.cluster) load(*e.cluster, e.project);
  if (e.estimate && e.placement && !editor_needs_cluster_)
    editor_->setCommPlan(e.estimate->comm, e.project.layout, *e.placement);
  else if (e.serving_traffic && !editor_needs_cluster_)
    editor_->setLinkLoads(e.serving_traffic->loads, e.serving_traffic->placement);
  else
    editor_->clearCommMap();
}

void TopologyLink::load(const Cluster& cluster, const Project& project) {
  editor_needs_cluster_ = false;
  loading_cluster_ = true;
  editor_->setCluster(cluster);
  loading_cluster_ = false;
  if (const auto state = project.view.find("topology"); state != project.view.end() && state->is_object())
    editor_->setViewState(*state);
}

}  // namespace meshscope::ui
