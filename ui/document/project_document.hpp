#pragma once
// The project being edited, and its one undo history (Qt's undo framework: small named commands,
// ui/document/project_commands.hpp). Widgets never change the project themselves: they push a
// command; the command changes the project through modify(), and changed() tells every view
// what kind of change it was. The topology editor's commands live on the same stack: after each
// of them (and its undo or redo) the editor's cluster becomes the project's (adoptDrawnCluster).
//
// The clean state of the stack is the saved state: undoing back to it clears the window's
// modified mark (ui/window/file_session.cpp).
#include <QObject>
#include <QUndoStack>

#include <functional>

#include "core/project/project.hpp"

namespace meshscope::ui {

class ProjectDocument final : public QObject {
  Q_OBJECT

 public:
  // What a change touched, so that a view re-reads only what it shows.
  enum class Change {
    reset,           // a new project (New, Open, a recovered one): a new history
    project,         // the model, workload, layout, schedule, calibration or a view choice
    cluster,         // the cluster was replaced (a generator, an import): the editor reloads it
    drawn_cluster,   // the cluster was edited in the topology editor, which already shows it
    serving_target,  // only the serving target (the search re-ranks; nothing is re-estimated)
  };
  Q_ENUM(Change)

  explicit ProjectDocument(Project project, QObject* parent = nullptr);

  [[nodiscard]] const Project& project() const { return project_; }
  [[nodiscard]] QUndoStack* undoStack() { return &undo_; }

  // Replaces the project and starts a new history (changed(reset)).
  void reset(Project project);
  // Pushes an edit (the stack owns it; pushing applies it).
  void push(QUndoCommand* command);

  // For the commands: changes the project and says so.
  void modify(Change change, const std::function<void(Project&)>& edit);
  // After a topology editor command (its redo or undo): the project's cluster is the drawn one.
  void adoptDrawnCluster(const Cluster& cluster);
  // Saving records the dock arrangement in the project; not an edit.
  void setViewState(nlohmann::json view) { project_.view = std::move(view); }

 signals:
  void changed(meshscope::ui::ProjectDocument::Change change);

 private:
  Project project_;
  QUndoStack undo_;
};

}  // namespace meshscope::ui
