#include "ui/window/file_session.hpp"

#include <QAction>
#include <QCoreApplication>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeySequence>
#include <QLineEdit>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

#include <algorithm>
#include <utility>

#include "core/model/catalogue.hpp"
#include "core/model/model_io.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_document.hpp"
#include "ui/window/app_settings.hpp"
#include "ui/window/main_window.hpp"

namespace meshscope::ui {

namespace {

constexpr int kMaxRecentFiles = 8;

}  // namespace

FileSession::FileSession(MainWindow* window, ProjectDocument* document, Evaluator* evaluator,
                         const QString& recovery_dir, int autosave_interval_s)
    : WindowController(window),
      window_(window),
      document_(document),
      recovery_(recovery_dir, QCoreApplication::applicationPid()),
      autosave_timer_(new QTimer(this)) {
  connect(document_, &ProjectDocument::changed, this, [this](ProjectDocument::Change change) {
    if (change != ProjectDocument::Change::reset) {
      autosave_pending_ = true;
      return;
    }
    // A new project starts a new history.
    recovered_unsaved_ = autosave_pending_ = false;
    window_->setWindowTitle(tr("meshscope \u2014 %1[*]").arg(QString::fromStdString(document_->project().name)));
    updateModified();
  });
  // Undoing or redoing back to the saved state clears the modified mark; anything else sets it.
  connect(document_->undoStack(), &QUndoStack::cleanChanged, this, &FileSession::updateModified);
  connect(evaluator, &Evaluator::evaluated, this,
          [this](const std::shared_ptr<const Evaluation>& evaluation) { onEvaluated(*evaluation); });
  connect(autosave_timer_, &QTimer::timeout, this, &FileSession::autosaveNow);
  setAutosaveInterval(autosave_interval_s);
}

void FileSession::setProject(const Project& project, const QString& path) {
  path_ = path;
  document_->reset(project);
}

void FileSession::onEvaluated(const Evaluation& evaluation) {
  // An edit that evaluates cleanly is autosaved at once (the timer catches the others).
  if (autosave_pending_ && evaluation.problems.empty() && evaluation.cluster_error.empty()) autosaveNow();
}

// ---- Open and save ------------------------------------------------------------------------------------------------

bool FileSession::openProject(const QString& path) {
  const std::string file = QFile::encodeName(path).toStdString();
  Result<Project> project = [&]() -> Result<Project> {
    MS_TRY(text, read_text_file(file));
    MS_TRY(doc, parse_json_text(text, file));
    return project_from_json(doc, file);
  }();
  if (!project) {
    emit inlineError(tr("Could not open %1 — the current project is unchanged.\n%2")
                         .arg(path, QString::fromStdString(project.error().to_string())));
    return false;
  }
  emit inlineError({});
  setProject(*project, path);
  rememberRecent(path);
  return true;
}

bool FileSession::saveProject(const QString& path) {
  document_->setViewState(window_->viewState());
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(project_to_json(document_->project()).dump(2) + "\n"),
                             error)) {
    emit inlineError(tr("Not saved — %1. The file on disk is unchanged.").arg(error));
    return false;
  }
  emit inlineError({});
  path_ = path;
  markSaved();
  emit status(tr("Saved %1").arg(path));
  return true;
}

void FileSession::rememberRecent(const QString& path) {
  AppSettings settings;
  QStringList recent = settings.recent_files();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecentFiles) recent.removeLast();
  settings.set_recent_files(recent);
  rebuildRecentMenu();
}

void FileSession::rebuildRecentMenu() {
  if (recent_menu_ == nullptr) return;
  recent_menu_->clear();
  const QStringList recent = AppSettings().recent_files();
  for (const QString& path : recent) {
    QAction* action = recent_menu_->addAction(QFileInfo(path).fileName());
    action->setToolTip(path);
    connect(action, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openProject(path);
    });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

// ---- The modified mark and "Save changes?" ------------------------------------------------------------------------

bool FileSession::isModified() const {
  return recovered_unsaved_ || !document_->undoStack()->isClean();
}

void FileSession::updateModified() {
  window_->setWindowModified(isModified());
}

void FileSession::markSaved() {
  document_->undoStack()->setClean();
  recovered_unsaved_ = autosave_pending_ = false;
  recovery_.remove();
  updateModified();
}

bool FileSession::maybeSave() {
  if (!isModified()) return true;
  const QString name =
      path_.isEmpty() ? QString::fromStdString(document_->project().name) : QFileInfo(path_).fileName();
  QMessageBox box(QMessageBox::Warning, tr("meshscope"), tr("Save changes to %1?").arg(name),
                  QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, window_);
  box.setObjectName(QStringLiteral("save_changes_prompt"));
  box.setInformativeText(path_.isEmpty() ? tr("This project has never been saved; unsaved changes are lost.")
                                         : tr("Unsaved changes are lost if you don't save them."));
  box.setDefaultButton(QMessageBox::Save);
  switch (box.exec()) {
    case QMessageBox::Save: {
      QString path = path_;
      if (path.isEmpty())
        path = QFileDialog::getSaveFileName(window_, tr("Save project"), QString(), tr("meshscope projects (*.json)"));
      return !path.isEmpty() && saveProject(path);  // a failed save says why and keeps the window
    }
    case QMessageBox::Discard:
      recovery_.remove();
      return true;
    default:
      return false;
  }
}

// ---- Autosave and recovery ----------------------------------------------------------------------------------------

bool FileSession::autosaveNow() {
  if (!recovery_.enabled() || !isModified()) return true;
  Project snapshot = document_->project();
  snapshot.view = window_->viewState();
  QString error;
  if (!recovery_.write(snapshot, path_, error)) {
    emit status(tr("Autosave failed: %1").arg(error));
    return false;
  }
  autosave_pending_ = false;
  return true;
}

void FileSession::setAutosaveInterval(int seconds) {
  autosave_interval_s_ = std::max(1, seconds);
  if (recovery_.enabled()) autosave_timer_->start(autosave_interval_s_ * 1000);
}

bool FileSession::offerRecovery() {
  QStringList problems;
  std::vector<RecoveredProject> found = recovery_.orphans(&problems);
  if (!problems.isEmpty())
    emit inlineError(tr("A recovery file could not be read (it is kept):\n%1").arg(problems.join(QLatin1Char('\n'))));
  if (found.empty()) return false;
  RecoveredProject& newest = found.front();
  const QString when = QLocale().toString(newest.saved_at, QLocale::LongFormat);
  QMessageBox box(QMessageBox::Question, tr("meshscope"), tr("A project was not saved on %1.").arg(when), {}, window_);
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
    setProject(newest.project, newest.original_path);
    recovered_unsaved_ = true;  // not on disk until saved: it stays in this window's recovery file
    updateModified();
    moved = autosaveNow();
  }
  if (moved) QFile::remove(newest.file);  // now in this window's own recovery file, or discarded
  return restoring;
}

// ---- Drops --------------------------------------------------------------------------------------------------------

QString FileSession::droppedProject(const QMimeData* mime) {
  if (mime == nullptr || !mime->hasUrls() || mime->urls().size() != 1) return {};
  const QUrl url = mime->urls().front();
  if (!url.isLocalFile()) return {};
  const QString path = url.toLocalFile();
  return path.endsWith(QStringLiteral(".json"), Qt::CaseInsensitive) ? path : QString();
}

void FileSession::openDropped(const QString& path) {
  QTimer::singleShot(0, this, [this, path] {
    if (maybeSave()) openProject(path);
  });
}

// ---- Menus --------------------------------------------------------------------------------------------------------

void FileSession::addOpenActions(QMenu* file) {
  QMenu* new_menu = file->addMenu(tr("&New"));
  QAction* new_default = new_menu->addAction(tr("Default project"));
  connect(new_default, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    if (auto project = default_project()) setProject(*project);
  });
  QMenu* samples = new_menu->addMenu(tr("From a sample cluster"));
  for (const SampleCluster& sample : sample_clusters()) {
    const QString file_name = QString::fromUtf8(sample.file.data(), static_cast<qsizetype>(sample.file.size()));
    QAction* action = samples->addAction(file_name);
    connect(action, &QAction::triggered, this,
            [this, text = std::string(sample.text), file_name] { newFromSample(text, file_name); });
  }
  QAction* from_generator = new_menu->addAction(tr("From a generator…"));
  connect(from_generator, &QAction::triggered, this, &FileSession::newFromGenerator);
  QAction* open = file->addAction(tr("&Open…"));
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open project"), QString(),
                                                      tr("meshscope projects (*.json);;All files (*)"));
    if (!path.isEmpty()) openProject(path);
  });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  rebuildRecentMenu();
}

void FileSession::newFromSample(const std::string& text, const QString& file_name) {
  if (!maybeSave()) return;
  auto doc = parse_json_text(text, file_name.toStdString());
  auto cluster = doc ? cluster_from_json(*doc, file_name.toStdString()) : Result<Cluster>(tl::unexpected(doc.error()));
  if (!cluster) return emit inlineError(QString::fromStdString(cluster.error().to_string()));
  Project edited = document_->project();
  edited.cluster_inline = std::move(*cluster);
  edited.cluster.clear();
  edited.name = edited.model.name + " on " + edited.cluster_inline->name;
  setProject(edited);
}

void FileSession::newFromGenerator() {
  bool ok = false;
  const QString spec = QInputDialog::getText(window_, tr("New project from a generator"),
                                             tr("Generator string, e.g. dgx-h100:nodes=16 (docs/cluster-format.md)"),
                                             QLineEdit::Normal, QStringLiteral("dgx-h100:nodes=8"), &ok);
  if (!ok || spec.isEmpty() || !maybeSave()) return;
  auto cluster = resolve_cluster(spec.toStdString());
  if (!cluster) return emit inlineError(QString::fromStdString(cluster.error().to_string()));
  Project edited = document_->project();
  edited.cluster = spec.toStdString();
  edited.cluster_inline.reset();
  edited.gpu_count = cluster->num_gpus();
  setProject(edited);
}

void FileSession::addSaveActions(QMenu* file) {
  QAction* save = file->addAction(tr("&Save"));
  save->setShortcut(QKeySequence::Save);
  QAction* save_as = file->addAction(tr("Save &As…"));
  save_as->setShortcut(QKeySequence::SaveAs);
  const auto ask_save = [this] {
    const QString path =
        QFileDialog::getSaveFileName(window_, tr("Save project"), path_, tr("meshscope projects (*.json)"));
    if (!path.isEmpty()) saveProject(path);
  };
  connect(save, &QAction::triggered, this, [this, ask_save] {
    if (path_.isEmpty())
      ask_save();
    else
      saveProject(path_);
  });
  connect(save_as, &QAction::triggered, this, ask_save);
}

void FileSession::addAutosaveAction(QMenu* edit) {
  QAction* autosave = edit->addAction(tr("&Autosave interval…"));
  connect(autosave, &QAction::triggered, this, [this] {
    bool ok = false;
    const int seconds =
        QInputDialog::getInt(window_, tr("Autosave"), tr("Write unsaved changes to the recovery file every (seconds):"),
                             autosaveInterval(), 1, 3600, 10, &ok);
    if (!ok) return;
    AppSettings().set_autosave_interval_s(seconds);
    setAutosaveInterval(seconds);
  });
}

}  // namespace meshscope::ui
