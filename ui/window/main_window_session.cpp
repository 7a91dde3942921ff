// The main window's care for the user's work: the modified mark, "Save changes?" before anything
// replaces or closes the project, autosave to a recovery file, the offer to restore after a crash,
// and projects dropped on the window.
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

#include "ui/window/main_window.hpp"

namespace meshscope::ui {

namespace {

// A dropped local file that may be a project (the profile view takes traces dropped on it).
QString dropped_project(const QMimeData* mime) {
  if (mime == nullptr || !mime->hasUrls() || mime->urls().size() != 1) return {};
  const QUrl url = mime->urls().front();
  if (!url.isLocalFile()) return {};
  const QString path = url.toLocalFile();
  return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? path : QString();
}

}  // namespace

bool MainWindow::isModified() const {
  return recovered_unsaved_ || !document_->undoStack()->isClean();
}

void MainWindow::update_modified() {
  setWindowModified(isModified());
}

void MainWindow::mark_saved() {
  document_->undoStack()->setClean();
  recovered_unsaved_ = autosave_pending_ = false;
  recovery_.remove();
  update_modified();
}

bool MainWindow::maybeSave() {
  if (!isModified()) return true;
  const QString name = path_.isEmpty() ? QString::fromStdString(project().name) : QFileInfo(path_).fileName();
  QMessageBox box(QMessageBox::Warning, tr("meshscope"), tr("Save changes to %1?").arg(name),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
  box.setObjectName(QStringLiteral("save_changes_prompt"));
  box.setInformativeText(path_.isEmpty() ? tr("This project has never been saved; unsaved changes are lost.")
                                         : tr("Unsaved changes are lost if you don't save them."));
  box.setDefaultButton(QMessageBox::Save);
  switch (box.exec()) {
    case QMessageBox::Save: {
      QString path = path_;
      if (path.isEmpty())
        path = QFileDialog::getSaveFileName(this, tr("Save project"), QString(), tr("meshscope projects (*.json)"));
      return !path.isEmpty() && saveProject(path);  // a failed save says why and keeps the window
    }
    case QMessageBox::Discard:
      recovery_.remove();
      return true;
    default:
      return false;
  }
}

bool MainWindow::autosaveNow() {
  if (!recovery_.enabled() || !isModified()) return true;
  Project snapshot = project();
  snapshot.view = viewState();
  QString error;
  if (!recovery_.write(snapshot, path_, error)) {
    status_->setText(tr("Autosave failed: %1").arg(error));
    return false;
  }
  autosave_pending_ = false;
  return true;
}

void MainWindow::setAutosaveInterval(int seconds) {
  options_.autosave_interval_s = std::max(1, seconds);
  if (recovery_.enabled()) autosave_timer_->start(options_.autosave_interval_s * 1000);
}

bool MainWindow::offerRecovery() {
  QStringList problems;
  std::vector<RecoveredProject> found = recovery_.orphans(&problems);
  if (!problems.isEmpty())
    show_inline_error(tr("A recovery file could not be read (it is kept):\n%1").arg(problems.join(QLatin1Char('\n'))));
  if (found.empty()) return false;
  RecoveredProject& newest = found.front();
  const QString when = QLocale().toString(newest.saved_at, QLocale::LongFormat);
  QMessageBox box(QMessageBox::Question, tr("meshscope"), tr("A project was not saved on %1.").arg(when), {}, this);
  box.setObjectName(QStringLiteral("recovery_prompt"));
  const QString name = QString::fromStdString(newest.project.name);
  box.setInformativeText(newest.original_path.isEmpty()
                             ? tr("%1 had never been saved. Restore it, or discard the recovered changes?").arg(name)
                             : tr("%1 (%2) has changes that were not saved there. Restore them, or discard them?")
                                   .arg(name, newest.original_path));
  QPushButton* restore = box.addButton(tr("Restore"), QMessageBox::AcceptRole);
  box.addButton(tr("Discard"), QMessageBox::DestructiveRole);
  box.setDefaultButton(restore);
  box.exec();
  const bool restoring = box.clickedButton() == restore;
  bool moved = true;
  if (restoring) {
    path_ = newest.original_path;
    setProject(newest.project);
    recovered_unsaved_ = true;  // not on disk until saved: it stays in this window's recovery file
    update_modified();
    moved = autosaveNow();
  }
  if (moved) QFile::remove(newest.file);  // now in this window's own recovery file, or discarded
  return restoring;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (!dropped_project(event->mimeData()).isEmpty()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  const QString path = dropped_project(event->mimeData());
  if (path.isEmpty()) return;
  event->acceptProposedAction();
  // Queued: the drag's event loop ends before the prompt opens its own.
  QTimer::singleShot(0, this, [this, path] {
    if (maybeSave()) openProject(path);
  });
}

}  // namespace meshscope::ui
