#pragma once
// The main window's care for the project file and the user's work: New (the default project, a sample
// cluster, a generator), Open, Open Recent, Save, Save As; the modified mark in the title; "Save changes
// to X?" before anything replaces or closes the project; autosave to a recovery file; the offer to restore
// after a crash; a project file dropped on the window.
#include <QString>

#include "core/project/project.hpp"
#include "ui/window/recovery.hpp"
#include "ui/window/window_controller.hpp"

class QMainWindow;
class QMenu;
class QMimeData;
class QTimer;

namespace meshscope {
struct Evaluation;
}

namespace meshscope::ui {

class Evaluator;
class MainWindow;
class ProjectDocument;

class FileSession final : public WindowController {
  Q_OBJECT

 public:
  // recovery_dir: where the unsaved project is autosaved (ui/window/recovery.hpp); empty: no autosave.
  FileSession(MainWindow* window, ProjectDocument* document, Evaluator* evaluator, const QString& recovery_dir,
              int autosave_interval_s);

  // Replaces the project (a new history), as opened from `path` ("": a new project, never saved).
  void setProject(const Project& project, const QString& path = {});
  // Loads a project file; on error the message is shown inline and the current project is kept.
  bool openProject(const QString& path);
  // Writes the project atomically (QSaveFile): a failed save leaves the old file intact and says why
  // inline. A successful one marks the project clean and removes the recovery file.
  bool saveProject(const QString& path);
  [[nodiscard]] const QString& path() const { return path_; }

  // Unsaved changes: a step on the project's undo stack (workload, layout, topology, serving
  // target, calibration, ...) since the last save or open, or a project restored from a recovery
  // file. An undo back to the saved state clears it. The title shows it ([*]).
  [[nodiscard]] bool isModified() const;
  // Before New, Open, Open Recent, a dropped project, Quit and close: "Save changes to X?" (Save /
  // Discard / Cancel) when modified. True when the caller may go on (saved, discarded or clean).
  bool maybeSave();

  // Autosave: writes the project to this window's recovery file when it has unsaved changes. True
  // when written (or nothing to write). An edit that evaluates cleanly is autosaved at once; the
  // timer catches the others.
  bool autosaveNow();
  [[nodiscard]] QString recoveryFile() const { return recovery_.file(); }
  // The window closes with nothing to recover (saved, discarded or clean).
  void removeRecoveryFile() const { recovery_.remove(); }
  void setAutosaveInterval(int seconds);
  [[nodiscard]] int autosaveInterval() const { return autosave_interval_s_; }
  // After a crash: offers the newest project a process that is no longer running left unsaved ("a
  // project was not saved on <time>: Restore / Discard"). Restore makes it the current, modified
  // project; Discard deletes the file. False when there was nothing to offer or it was discarded.
  bool offerRecovery();

  // A dropped local file that may be a project ("" otherwise; the profile view takes dropped traces).
  [[nodiscard]] static QString droppedProject(const QMimeData* mime);
  // Opens a dropped project after maybeSave (queued: the drag's event loop ends before the prompt opens).
  void openDropped(const QString& path);

  // File: New ▸, Open…, Open Recent ▸ (then the window adds the lessons), and Save, Save As….
  void addOpenActions(QMenu* file);
  void addSaveActions(QMenu* file);
  // Edit: Autosave interval….
  void addAutosaveAction(QMenu* edit);

 private:
  void newFromSample(const std::string& text, const QString& file_name);
  void newFromGenerator();
  void rebuildRecentMenu();
  void rememberRecent(const QString& path);
  void onEvaluated(const Evaluation& evaluation);
  void updateModified();
  void markSaved();

  MainWindow* window_;
  ProjectDocument* document_;
  QString path_;
  RecoveryStore recovery_;
  QTimer* autosave_timer_ = nullptr;
  int autosave_interval_s_ = 60;
  bool autosave_pending_ = false;   // edited since the last autosave
  bool recovered_unsaved_ = false;  // restored from a recovery file and not saved since
  QMenu* recent_menu_ = nullptr;
};

}  // namespace meshscope::ui
