#pragma once
// One project edit on the main window's undo stack: the project before and after, applied back
// through a callback (the first redo, when pushed, is a no-op: the edit is already applied).
#include <QUndoCommand>

#include <functional>
#include <utility>

#include "core/project.hpp"

namespace meshscope::ui {

// One project edit on the undo stack: the project before and after (a few kB; the cluster is
// shared by value only when inline).
class ProjectEdit final : public QUndoCommand {
 public:
  ProjectEdit(std::function<void(const Project&)> apply, Project before, Project after, const QString& text)
      : QUndoCommand(text), apply_(std::move(apply)), before_(std::move(before)), after_(std::move(after)) {}
  void undo() override { apply_(before_); }
  void redo() override {
    if (first_) {
      first_ = false;  // already applied when pushed
      return;
    }
    apply_(after_);
  }

 private:
  std::function<void(const Project&)> apply_;
  Project before_, after_;
  bool first_ = true;
};

}  // namespace meshscope::ui
