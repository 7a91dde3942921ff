// No lost work: the modified mark, "Save changes?" before anything replaces or closes the project,
// atomic saves that fail without harm, autosave to a recovery file, and the offer to restore it
// after the process was killed. Offscreen; prompts are answered by clicking their real buttons.
#include <catch2/catch.hpp>

#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QElapsedTimer>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QProcess>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>
#include <QUrl>

#include <sys/resource.h>

#include <csignal>
#include <memory>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "qt_catch.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/recovery.hpp"

using namespace meshscope;

namespace {

Project default_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

// Clicks `button` of the next message box named `name` as soon as it is shown; the returned flag
// says whether it was (a prompt that never opens leaves it false).
std::shared_ptr<bool> answer_next(const QString& name, QMessageBox::StandardButton button) {
  auto answered = std::make_shared<bool>(false);
  auto* poll = new QTimer(qApp);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, name, button, answered] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box == nullptr || box->objectName() != name) return;
    *answered = true;
    poll->deleteLater();
    box->button(button)->click();
  });
  poll->start(10);
  // Nothing opened: stop polling after 5 s so that a test that fails does not leave it behind.
  QTimer::singleShot(5000, poll, &QObject::deleteLater);
  return answered;
}

// The recovery prompt's buttons are custom (Restore / Discard): click the one with `text`.
std::shared_ptr<bool> answer_recovery(const QString& text) {
  auto answered = std::make_shared<bool>(false);
  auto* poll = new QTimer(qApp);
  QObject::connect(poll, &QTimer::timeout, poll, [poll, text, answered] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (box == nullptr || box->objectName() != QStringLiteral("recovery_prompt")) return;
    for (QAbstractButton* b : box->buttons())
      if (b->text() == text) {
        *answered = true;
        poll->deleteLater();
        b->click();
        return;
      }
  });
  poll->start(10);
  QTimer::singleShot(5000, poll, &QObject::deleteLater);
  return answered;
}

QAction* menu_action(QWidget& window, const QString& text) {
  for (QAction* action : window.findChildren<QAction*>())
    if (action->text() == text) return action;
  FAIL("no action " << text.toStdString());
  return nullptr;
}

// File → Open Recent's entry for `path` (QSettings may list older files of the same name).
QAction* recent_action(QWidget& window, const QString& path) {
  for (QAction* action : window.findChildren<QAction*>())
    if (action->toolTip() == path) return action;
  FAIL("no recent entry " << path.toStdString());
  return nullptr;
}

// An edit a user makes in the layout form: PP 8, DP 1 (two undo entries).
void edit_layout(ui::MainWindow& window) {
  ui::KeyForm* form = window.workloadPanel()->layoutForm();
  REQUIRE(form->setValue("dp", QStringLiteral("1")));
  REQUIRE(form->setValue("pp", QStringLiteral("8")));
  window.waitForEvaluation();
  REQUIRE(window.project().layout.pp == 8);
}

Project read_project(const QString& path) {
  auto text = read_text_file(QFile::encodeName(path).toStdString());
  REQUIRE(text);
  auto doc = parse_json_text(*text, path.toStdString());
  REQUIRE(doc);
  auto project = project_from_json(doc->contains("project") ? doc->at("project") : *doc, path.toStdString());
  REQUIRE(project);
  return *project;
}

template <typename Predicate>
bool wait_until(Predicate done, int timeout_ms = 20000) {
  QElapsedTimer timer;
  timer.start();
  while (!done() && timer.elapsed() < timeout_ms) QApplication::processEvents(QEventLoop::AllEvents, 20);
  return done();
}

}  // namespace

TEST_CASE("unsaved work: an edit sets the modified mark and undoing back to the saved state clears it") {
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  CHECK_FALSE(window.session()->isModified());
  CHECK(window.windowTitle().contains(QStringLiteral("[*]")));
  CHECK_FALSE(window.isWindowModified());

  edit_layout(window);
  CHECK(window.session()->isModified());
  CHECK(window.isWindowModified());
  window.undoStack()->undo();
  CHECK(window.isWindowModified());  // one of two edits undone
  window.undoStack()->undo();
  window.waitForEvaluation();
  CHECK_FALSE(window.session()->isModified());
  CHECK_FALSE(window.isWindowModified());
  window.undoStack()->redo();
  CHECK(window.isWindowModified());

  // After a save, the saved state is the clean one: undo past it is a change again.
  QTemporaryDir dir;
  REQUIRE(window.session()->saveProject(dir.filePath(QStringLiteral("p.json"))));
  CHECK_FALSE(window.isWindowModified());
  window.undoStack()->undo();
  CHECK(window.isWindowModified());
}

TEST_CASE("unsaved work: New, Open Recent, a dropped project and closing ask to save; Cancel keeps the edit") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("mine.json"));
  ui::MainWindow window(default_or_fail());
  window.show();
  window.waitForEvaluation();
  REQUIRE(window.session()->saveProject(path));
  REQUIRE(window.session()->openProject(path));  // puts it on Open Recent
  window.waitForEvaluation();
  edit_layout(window);

  SECTION("File → New → Default project: Cancel keeps the edit, Discard replaces it") {
    auto asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Cancel);
    menu_action(window, QStringLiteral("Default project"))->trigger();
    CHECK(*asked);
    CHECK(window.project().layout.pp == 8);
    CHECK(window.session()->isModified());
    asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Discard);
    menu_action(window, QStringLiteral("Default project"))->trigger();
    CHECK(*asked);
    CHECK(window.project().layout.pp != 8);
    CHECK_FALSE(window.session()->isModified());
  }
  SECTION("Open Recent: Save writes the edit to its file first") {
    auto asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Save);
    recent_action(window, path)->trigger();
    CHECK(*asked);
    CHECK(read_project(path).layout.pp == 8);
    window.waitForEvaluation();
    CHECK(window.project().layout.pp == 8);  // reopened from the saved file
    CHECK_FALSE(window.session()->isModified());
  }
  SECTION("a project dropped on the window: Cancel keeps the edit, Discard opens the file") {
    const QString other = dir.filePath(QStringLiteral("other.json"));
    REQUIRE(QFile::copy(path, other));
    QMimeData mime;
    mime.setUrls({QUrl::fromLocalFile(other)});
    QDragEnterEvent enter(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter);
    CHECK(enter.isAccepted());
    QDropEvent drop(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    auto asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Cancel);
    QApplication::sendEvent(&window, &drop);
    REQUIRE(wait_until([&] { return *asked; }));
    QApplication::processEvents();
    CHECK(window.project().layout.pp == 8);
    asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Discard);
    QDragEnterEvent enter_again(QPoint(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &enter_again);
    QDropEvent again(QPointF(100, 100), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(&window, &again);
    REQUIRE(wait_until([&] { return *asked; }));
    window.waitForEvaluation();
    CHECK(window.project().layout.pp != 8);
    CHECK_FALSE(window.session()->isModified());
  }
  SECTION("closing the window (and Quit): Cancel keeps it open") {
    auto asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Cancel);
    CHECK_FALSE(window.close());
    CHECK(*asked);
    CHECK(window.isVisible());
    asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Cancel);
    menu_action(window, QStringLiteral("&Quit"))->trigger();
    CHECK(*asked);
    CHECK(window.isVisible());
    asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Discard);
    CHECK(window.close());
    CHECK(*asked);
  }
}

TEST_CASE("unsaved work: a clean project closes without a question") {
  ui::MainWindow window(default_or_fail());
  window.show();
  window.waitForEvaluation();
  auto asked = answer_next(QStringLiteral("save_changes_prompt"), QMessageBox::Cancel);
  CHECK(window.close());
  CHECK_FALSE(*asked);
}

TEST_CASE("unsaved work: a save that fails (file too large, missing folder) leaves the old file intact and says why") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("p.json"));
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  REQUIRE(window.session()->saveProject(path));
  QFile saved(path);
  REQUIRE(saved.open(QIODevice::ReadOnly));
  const QByteArray before = saved.readAll();
  saved.close();
  edit_layout(window);

  // The disk is "full" for this process: RLIMIT_FSIZE makes every write past 1 KiB fail (EFBIG),
  // as ENOSPC would, whatever the user (root included).
  struct rlimit old_limit {};
  REQUIRE(getrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit small = old_limit;
  small.rlim_cur = 1024;
  REQUIRE(setrlimit(RLIMIT_FSIZE, &small) == 0);
  const bool saved_ok = window.session()->saveProject(path);
  REQUIRE(setrlimit(RLIMIT_FSIZE, &old_limit) == 0);
  std::signal(SIGXFSZ, old_handler);

  CHECK_FALSE(saved_ok);
  CHECK(window.inlineError().contains(path));
  CHECK(window.inlineError().contains(QStringLiteral("unchanged")));
  CHECK(window.session()->isModified());  // the edit is still unsaved
  REQUIRE(saved.open(QIODevice::ReadOnly));
  CHECK(saved.readAll() == before);
  saved.close();
  CHECK(QDir(dir.path()).entryList(QDir::Files) == QStringList{QStringLiteral("p.json")});  // no temporary left

  const QString nowhere = dir.filePath(QStringLiteral("no/such/folder/p.json"));
  CHECK_FALSE(window.session()->saveProject(nowhere));
  CHECK(window.inlineError().contains(nowhere));
  CHECK(window.session()->isModified());
}

TEST_CASE("unsaved work: an evaluated edit is autosaved to the recovery file; a clean save removes it") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  ui::MainWindow::Options options;
  options.recovery_dir = dir.filePath(QStringLiteral("state"));
  ui::MainWindow window(default_or_fail(), options);
  window.waitForEvaluation();
  CHECK_FALSE(QFile::exists(window.session()->recoveryFile()));  // nothing unsaved yet

  edit_layout(window);
  REQUIRE(QFile::exists(window.session()->recoveryFile()));
  CHECK(read_project(window.session()->recoveryFile()).layout.pp == 8);

  // An edit that does not evaluate (an invalid layout) is written by the timer.
  window.session()->setAutosaveInterval(1);
  REQUIRE(window.workloadPanel()->layoutForm()->setValue("tp", QStringLiteral("3")));
  window.waitForEvaluation();
  REQUIRE(window.evaluation());
  CHECK_FALSE(window.evaluation()->problems.empty());
  CHECK(read_project(window.session()->recoveryFile()).layout.tp != 3);
  REQUIRE(wait_until([&] { return read_project(window.session()->recoveryFile()).layout.tp == 3; }));

  REQUIRE(window.session()->saveProject(dir.filePath(QStringLiteral("p.json"))));
  CHECK_FALSE(QFile::exists(window.session()->recoveryFile()));
}

TEST_CASE("unsaved work: the project of a killed process is offered on the next start; Restore brings it back") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString state = dir.filePath(QStringLiteral("state"));
  // The child (this test binary, tests/ui/main.cpp) opens the default project, edits the layout
  // to PP 8 · DP 1, waits for the autosave and says so; then it is killed, as a crash would.
  QProcess child;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("MESHSCOPE_UI_TEST_CHILD"), QStringLiteral("edit-and-wait"));
  env.insert(QStringLiteral("MESHSCOPE_UI_TEST_RECOVERY_DIR"), state);
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  child.setProcessEnvironment(env);
  child.start(QCoreApplication::applicationFilePath(), {});
  REQUIRE(child.waitForStarted(10000));
  QByteArray said;
  REQUIRE(wait_until(
      [&] {
        child.waitForReadyRead(50);
        said += child.readAllStandardOutput();
        return said.contains("autosaved");
      },
      120000));

  // While the child runs, its file is its own live autosave: not offered.
  const ui::RecoveryStore store(state, QCoreApplication::applicationPid());
  CHECK(store.orphans().empty());
  child.kill();  // SIGKILL: no clean quit, the recovery file stays
  REQUIRE(child.waitForFinished(10000));
  const std::vector<ui::RecoveredProject> orphans = store.orphans();
  REQUIRE(orphans.size() == 1);
  CHECK(orphans.front().project.layout.pp == 8);
  CHECK(orphans.front().saved_at.isValid());

  ui::MainWindow::Options options;
  options.recovery_dir = state;
  SECTION("Restore: the edited project is current, still unsaved, and in this window's recovery file") {
    ui::MainWindow window(default_or_fail(), options);
    window.waitForEvaluation();
    auto asked = answer_recovery(QStringLiteral("Restore"));
    CHECK(window.session()->offerRecovery());
    CHECK(*asked);
    window.waitForEvaluation();
    CHECK(window.project().layout.pp == 8);
    CHECK(window.session()->isModified());
    CHECK_FALSE(QFile::exists(orphans.front().file));
    CHECK(read_project(window.session()->recoveryFile()).layout.pp == 8);
    CHECK(store.orphans().empty());
  }
  SECTION("Discard: the file is deleted and the project is the one opened") {
    ui::MainWindow window(default_or_fail(), options);
    window.waitForEvaluation();
    auto asked = answer_recovery(QStringLiteral("Discard"));
    CHECK_FALSE(window.session()->offerRecovery());
    CHECK(*asked);
    CHECK(window.project().layout.pp != 8);
    CHECK_FALSE(QFile::exists(orphans.front().file));
  }
}

TEST_CASE("unsaved work: a damaged recovery file is reported and kept, never deleted unread") {
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  REQUIRE(QDir().mkpath(dir.path()));
  const QString damaged = dir.filePath(QStringLiteral("recovery-999999999.json"));  // no such process
  QFile file(damaged);
  REQUIRE(file.open(QIODevice::WriteOnly));
  file.write("{\"format\": \"meshscope-recovery\", \"project\": {\"format\": \"meshscope-pro");
  file.close();
  ui::MainWindow::Options options;
  options.recovery_dir = dir.path();
  ui::MainWindow window(default_or_fail(), options);
  window.waitForEvaluation();
  auto asked = answer_recovery(QStringLiteral("Restore"));
  CHECK_FALSE(window.session()->offerRecovery());
  CHECK_FALSE(*asked);
  CHECK(window.inlineError().contains(QStringLiteral("recovery-999999999.json")));
  CHECK(QFile::exists(damaged));
}
