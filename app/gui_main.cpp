// meshscope: the desktop app. Opens the built-in example project, or the project file given on the
// command line. --screenshot PATH renders the main window to an image and exits (docs/screenshots,
// run with QT_QPA_PLATFORM=offscreen). Bad input: a message (dialog and stderr), exit code 2.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QMessageBox>
#include <QPixmap>
#include <QSettings>
#include <QTimer>

#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "core/model_io.hpp"
#include "core/project.hpp"
#include "ui/main_window.hpp"

namespace {

using namespace meshscope;

constexpr int kExitBadInput = 2;
constexpr int kExitScreenshotFailed = 1;

Result<Project> load_project(const QStringList& positional) {
  if (positional.isEmpty()) return default_project();
  const std::string path = QFile::encodeName(positional.front()).toStdString();
  MS_TRY(text, read_text_file(path));
  MS_TRY(doc, parse_json_text(text, path));
  return project_from_json(doc, path);
}

}  // namespace

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("meshscope"));
  QApplication::setOrganizationName(QStringLiteral("meshscope"));
  QApplication::setApplicationVersion(QStringLiteral(MESHSCOPE_VERSION));
  QApplication::setDesktopFileName(QStringLiteral("meshscope"));

  QCommandLineParser parser;
  parser.setApplicationDescription(QStringLiteral("Plan parallel layouts of LLM training and serving."));
  parser.addHelpOption();
  parser.addVersionOption();
  const QCommandLineOption screenshot_option(QStringLiteral("screenshot"),
                                             QStringLiteral("Render the main window to <path> (PNG) and exit."),
                                             QStringLiteral("path"));
  parser.addOption(screenshot_option);
  const QCommandLineOption view_option(
      QStringLiteral("view"),
      QStringLiteral("Open with <view> in front: memory, pipeline, communication, ranked, compare, explain, "
                     "topology, serving, profile."),
      QStringLiteral("view"));
  parser.addOption(view_option);
  const QCommandLineOption trace_option(
      QStringLiteral("trace"),
      QStringLiteral("Import a PyTorch profiler trace (.json, .json.gz or a folder of ranks)."),
      QStringLiteral("path"));
  parser.addOption(trace_option);
  const QCommandLineOption pin_option(QStringLiteral("pin"),
                                      QStringLiteral("Pin two ranked layouts and compare them, e.g. 1,3."),
                                      QStringLiteral("a,b"));
  parser.addOption(pin_option);
  parser.addPositionalArgument(QStringLiteral("project"),
                               QStringLiteral("A meshscope project file; default: the built-in example."),
                               QStringLiteral("[project]"));
  parser.process(app);
  const QString screenshot_path = parser.value(screenshot_option);

  const Result<Project> project = load_project(parser.positionalArguments());
  if (!project) {
    const std::string message = project.error().to_string();
    std::fprintf(stderr, "meshscope: %s\n", message.c_str());
    // A screenshot run is unattended: no dialog that nobody can close.
    if (screenshot_path.isEmpty())
      QMessageBox::critical(nullptr, QStringLiteral("meshscope"), QString::fromStdString(message));
    return kExitBadInput;
  }

  ui::MainWindow::Options options;
  // The embedded default project opens on the best-ranked layout (the first screen).
  options.select_best_layout = parser.positionalArguments().isEmpty();
  ui::MainWindow window(*project, options);
  if (screenshot_path.isEmpty()) {
    // The arrangement the user left (a screenshot run uses the default one, reproducibly).
    const QSettings settings;
    window.restoreGeometry(settings.value(QStringLiteral("geometry")).toByteArray());
    window.restoreArrangement(settings.value(QStringLiteral("windowState")).toByteArray());
  }
  if (parser.isSet(view_option) && !window.showView(parser.value(view_option))) {
    std::fprintf(stderr, "meshscope: no view \"%s\" (%s)\n", qPrintable(parser.value(view_option)),
                 qPrintable(window.viewNames().join(QStringLiteral(", "))));
    return kExitBadInput;
  }
  window.show();
  if (parser.isSet(trace_option)) window.importTraces({parser.value(trace_option)});
  if (parser.isSet(pin_option)) {
    const QStringList ranks = parser.value(pin_option).split(QLatin1Char(','));
    window.waitForEvaluation();
    if (ranks.size() != 2 || !window.pinRanks(ranks[0].toInt(), ranks[1].toInt())) {
      std::fprintf(stderr, "meshscope: --pin takes two ranks of the ranked layouts, e.g. 1,3\n");
      return kExitBadInput;
    }
    window.showView(parser.isSet(view_option) ? parser.value(view_option) : QStringLiteral("compare"));
  }
  if (!screenshot_path.isEmpty()) {
    // Grab once every view shows the evaluation (and the search's best layout, if asked for).
    const QString view = parser.value(view_option);
    QTimer::singleShot(0, &window, [&window, &screenshot_path, view] {
      window.waitForEvaluation();
      while (window.importing()) QApplication::processEvents(QEventLoop::AllEvents, 20);
      // The documented size of the screenshots (docs/screenshots), whatever the views asked for.
      window.resize(1600, 1000);
      QApplication::processEvents();
      if (!view.isEmpty()) window.showView(view, true);
      QApplication::processEvents();
      if (window.grab().save(screenshot_path)) {
        QApplication::exit(0);
      } else {
        std::fprintf(stderr, "meshscope: cannot write %s\n", qPrintable(screenshot_path));
        QApplication::exit(kExitScreenshotFailed);
      }
    });
  }
  return QApplication::exec();
}
