#include "ui/document/project_document.hpp"

#include <algorithm>
#include <utility>

namespace meshscope::ui {

ProjectDocument::ProjectDocument(Project project, QObject* parent) : QObject(parent), project_(std::move(project)) {}

void ProjectDocument::reset(Project project) {
  project_ = std::move(project);
  undo_.clear();
  emit changed(Change::reset);
}

void ProjectDocument::push(QUndoCommand* command) {
  undo_.push(command);
}

void ProjectDocument::modify(Change change, const std::function<void(Project&)>& edit) {
  edit(project_);
  emit changed(change);
}

void ProjectDocument::adoptDrawnCluster(const Cluster& cluster) {
  project_.cluster_inline = cluster;
  project_.cluster.clear();
  project_.gpu_count =
      static_cast<int64_t>(std::count_if(cluster.devices.begin(), cluster.devices.end(),
                                         [](const Device& device) { return device.kind == DeviceKind::gpu; }));
  emit changed(Change::drawn_cluster);
}

}  // namespace meshscope::ui
