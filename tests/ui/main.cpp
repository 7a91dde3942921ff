// Catch2's runner inside a QApplication: item-model roles build QFont and QBrush values, which
// need a GUI application (offscreen in CTest). With MESHSCOPE_UI_TEST_CHILD set, the binary is
// instead the child process a test starts and kills (test_unsaved_work.cpp).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <QApplication>
#include <QFile>
#include <QStandardPaths>
#include <QTimer>

#include <cstdio>

#include "core/project/project.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/main_window.hpp"

namespace {

// Opens the default project with autosave into $MESHSCOPE_UI_TEST_RECOVERY_DIR, edits the layout
// to PP 8 · DP 1 as a user would, prints "autosaved" once the recovery file is written, and runs
// until it is killed (at most two minutes, should the test that started it be gone).
int edit_and_wait() {
  auto project = meshscope::default_project();
  if (!project) return 2;
  meshscope::ui::MainWindow::Options options;
  options.recovery_dir = qEnvironmentVariable("MESHSCOPE_UI_TEST_RECOVERY_DIR");
  meshscope::ui::MainWindow window(*project, options);
  window.waitForEvaluation();
  meshscope::ui::KeyForm* form = window.workloadPanel()->layoutForm();
  if (!form->setValue("dp", QStringLiteral("1")) || !form->setValue("pp", QStringLiteral("8"))) return 2;
  window.waitForEvaluation();
  if (!QFile::exists(window.session()->recoveryFile())) return 3;
  std::puts("autosaved");
  std::fflush(stdout);
  QTimer::singleShot(120000, qApp, &QCoreApplication::quit);
  return QApplication::exec();
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);              // takes Qt's own options (-platform ...) out of argv
  QStandardPaths::setTestModeEnabled(true);  // settings (recent files) go to ~/.qttest, not the user's
  if (qEnvironmentVariable("MESHSCOPE_UI_TEST_CHILD") == QStringLiteral("edit-and-wait")) return edit_and_wait();
  return Catch::Session().run(argc, argv);
}
