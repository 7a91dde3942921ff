// meshscope: the desktop app. Opens the built-in example project, or the project file given on the
// command line. --screenshot PATH renders the main window to an image and exits (docs/screenshots,
// run with QT_QPA_PLATFORM=offscreen). Bad input: a message (dialog and stderr), exit code 2.
// --help and --version need no display; without one, the app says how to run instead of aborting.
#include <QApplication>
#include <QCommandLineParser>
#include <QFile>
#include <QMessageBox>
#include <QPixmap>
#include <QTimer>

#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/model/model_io.hpp"
#include "core/project/project.hpp"
#include "ui/explore/scaling_view.hpp"
#include "ui/explore/tradeoff_view.hpp"
#include "ui/lessons/lesson_controller.hpp"
#include "ui/lessons/lesson_player.hpp"
#include "ui/panels/pipeline_animation.hpp"
#include "ui/window/app_settings.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/import_controller.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/recovery.hpp"

namespace {

using namespace meshscope;

constexpr int kExitBadInput = 2;
constexpr int kExitScreenshotFailed = 1;
constexpr int kExitNoDisplay = 3;

constexpr const char* kNoDisplayHelp =
    "meshscope: no display to open a window on.\n"
    "  Over ssh: connect with ssh -X (or -Y), or start a virtual display: xvfb-run -a meshscope [project]\n"
    "  Render a view without any display: QT_QPA_PLATFORM=offscreen meshscope --screenshot out.png [--view ranked]\n"
    "  Every number headless: meshscope-cli --help\n";

// --tradeoff-axis tp or tp,pp: the trade-off explorer's axes (ui/explore/tradeoff_view.hpp).
bool set_tradeoff_axes(meshscope::ui::MainWindow& window, const QString& text) {
  if (window.setTradeoffAxes(text)) return true;
  std::fprintf(stderr, "meshscope: --tradeoff-axis takes one or two of %s, e.g. tp or tp,pp\n",
               meshscope::enum_choices<meshscope::TradeoffAxis>().c_str());
  return false;
}

// The command line, the same for the display-less first pass and the application's own.
struct CommandLine {
  QCommandLineOption screenshot{QStringLiteral("screenshot"),
                                QStringLiteral("Render the main window to <path> (PNG) and exit."),
                                QStringLiteral("path")};
  QCommandLineOption view{QStringLiteral("view"),
                          QStringLiteral("Open with <view> in front: memory, pipeline, communication, ranked, "
                                         "compare, explain, topology, serving, profile, scaling, tradeoff, lesson."),
                          QStringLiteral("view")};
  QCommandLineOption trace{QStringLiteral("trace"),
                           QStringLiteral("Import a PyTorch profiler trace (.json, .json.gz or a folder of ranks)."),
                           QStringLiteral("path")};
  QCommandLineOption log{
      QStringLiteral("log"),
      QStringLiteral("Import a training log (Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan)."),
      QStringLiteral("path")};
  QCommandLineOption pin{QStringLiteral("pin"), QStringLiteral("Pin two ranked layouts and compare them, e.g. 1,3."),
                         QStringLiteral("a,b")};
  // View options: the scaling view's mode and GPU range; the pipeline animation's cursor.
  QCommandLineOption scaling{QStringLiteral("scaling"),
                             QStringLiteral("The scaling view's mode and GPU range, e.g. weak:8:1024."),
                             QStringLiteral("mode:from:to")};
  QCommandLineOption pipeline_time{
      QStringLiteral("pipeline-time"),
      QStringLiteral("Put the pipeline animation's cursor at this fraction (0 to 1) of the schedule."),
      QStringLiteral("fraction")};
  // Lessons and presenter mode (docs/lessons.md).
  QCommandLineOption lesson{QStringLiteral("lesson"),
                            QStringLiteral("Open a guided lesson: an embedded one by name, or a lesson file."),
                            QStringLiteral("name-or-file")};
  QCommandLineOption lesson_step{QStringLiteral("lesson-step"), QStringLiteral("Start the lesson at step <k>."),
                                 QStringLiteral("k")};
  QCommandLineOption presenter{QStringLiteral("presenter"), QStringLiteral("Start in presenter mode.")};
  QCommandLineOption tradeoff_axis{QStringLiteral("tradeoff-axis"),
                                   QStringLiteral("The trade-off explorer's axis, or two for its heat map: tp, tp,pp."),
                                   QStringLiteral("axis[,axis2]")};

  void add_to(QCommandLineParser& parser) const {
    parser.setApplicationDescription(
        QStringLiteral("Plan parallel layouts of LLM training and serving.\n"
                       "Unsaved changes are autosaved to $XDG_STATE_HOME/meshscope (default ~/.local/state/meshscope)\n"
                       "and offered back after a crash. Without a display: xvfb-run -a meshscope, or\n"
                       "QT_QPA_PLATFORM=offscreen meshscope --screenshot out.png, or meshscope-cli."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions({screenshot, view, trace, log, pin});
    parser.addOptions({scaling, pipeline_time});
    parser.addOptions({lesson, lesson_step, presenter});
    parser.addOption(tradeoff_axis);
    parser.addPositionalArgument(QStringLiteral("project"),
                                 QStringLiteral("A meshscope project file; default: the built-in example."),
                                 QStringLiteral("[project]"));
  }
};

void set_application_names() {
  QCoreApplication::setApplicationName(QStringLiteral("meshscope"));
  QCoreApplication::setOrganizationName(QStringLiteral("meshscope"));
  QCoreApplication::setApplicationVersion(QStringLiteral(MESHSCOPE_VERSION));
}

// Answers --help and --version without a display (QCoreApplication needs none); exits if asked.
void answer_help_and_version(int argc, char** argv) {
  const QCoreApplication first_pass(argc, argv);
  set_application_names();
  QCommandLineParser parser;
  const CommandLine command_line;
  command_line.add_to(parser);
  (void)parser.parse(QCoreApplication::arguments());  // Qt's own options (-platform) are taken later
  // process() prints --help, --help-all (Qt's options too) or --version and exits.
  if (parser.isSet(QStringLiteral("help")) || parser.isSet(QStringLiteral("help-all")) ||
      parser.isSet(QStringLiteral("version")))
    parser.process(QCoreApplication::arguments());
}

bool display_configured() {
  return !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") || !qEnvironmentVariableIsEmpty("DISPLAY") ||
         !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

// While the platform plugin starts: a display that cannot be opened (a stale DISPLAY over ssh) is
// Qt's fatal error; say how to run instead of aborting with a core dump.
void platform_start_messages(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  std::fprintf(stderr, "%s\n", qPrintable(qFormatLogMessage(type, context, message)));
  if (type == QtFatalMsg) {
    std::fputs(kNoDisplayHelp, stderr);
    std::_Exit(kExitNoDisplay);
  }
}

Result<Project> load_project(const QStringList& positional) {
  if (positional.isEmpty()) return default_project();
  const std::string path = QFile::encodeName(positional.front()).toStdString();
  MS_TRY(text, read_text_file(path));
  MS_TRY(doc, parse_json_text(text, path));
  return project_from_json(doc, path);
}

// --scaling and --pipeline-time (presenting, screenshots). False, with a message, for a bad value.
bool apply_view_options(ui::MainWindow& window, const QCommandLineParser& parser, const CommandLine& options) {
  if (parser.isSet(options.scaling)) {
    const QStringList parts = parser.value(options.scaling).split(QLatin1Char(':'));
    bool from_ok = false, to_ok = false;
    const int from = parts.size() == 3 ? parts[1].toInt(&from_ok) : 0;
    const int to = parts.size() == 3 ? parts[2].toInt(&to_ok) : 0;
    auto* view = window.findChild<ui::ScalingView*>();
    if (!view || parts.size() != 3 || (parts[0] != QLatin1String("weak") && parts[0] != QLatin1String("strong")) ||
        !from_ok || !to_ok || from < 1 || to < from) {
      std::fprintf(stderr, "meshscope: --scaling takes weak|strong:FROM:TO GPUs, e.g. weak:8:1024, not \"%s\"\n",
                   qPrintable(parser.value(options.scaling)));
      return false;
    }
    view->setRange(from, to);
    view->setMode(parts[0] == QLatin1String("weak") ? ScalingMode::weak : ScalingMode::strong);
  }
  if (parser.isSet(options.pipeline_time)) {
    bool ok = false;
    const double fraction = parser.value(options.pipeline_time).toDouble(&ok);
    if (!ok || fraction < 0 || fraction > 1) {
      std::fprintf(stderr, "meshscope: --pipeline-time takes a fraction from 0 to 1, not \"%s\"\n",
                   qPrintable(parser.value(options.pipeline_time)));
      return false;
    }
    window.waitForEvaluation();
    if (auto* animation = window.findChild<ui::PipelineAnimation*>(); animation && !animation->eventTimes().empty()) {
      const std::vector<double>& times = animation->eventTimes();
      animation->setTime(times.front() + fraction * (times.back() - times.front()));
    }
  }
  return true;
}

// Until the scaling view (when shown) has its result.
void wait_for_scaling(ui::MainWindow& window) {
  QApplication::processEvents();
  if (auto* view = window.findChild<ui::ScalingView*>())
    while (view->computing()) QApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
  QApplication::processEvents();
}

}  // namespace

int main(int argc, char** argv) {
  answer_help_and_version(argc, argv);
  if (!display_configured()) {
    std::fputs(kNoDisplayHelp, stderr);
    return kExitNoDisplay;
  }
  const QtMessageHandler previous_handler = qInstallMessageHandler(platform_start_messages);
  QApplication app(argc, argv);
  qInstallMessageHandler(previous_handler);
  set_application_names();
  QApplication::setDesktopFileName(QStringLiteral("meshscope"));

  QCommandLineParser parser;
  const CommandLine command_line;
  command_line.add_to(parser);
  parser.process(app);
  const QString screenshot_path = parser.value(command_line.screenshot);

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
  options.select_best_layout = parser.positionalArguments().isEmpty() && !parser.isSet(command_line.lesson);
  // Autosave and recovery in interactive sessions only (a screenshot run leaves nothing behind).
  if (screenshot_path.isEmpty()) {
    options.recovery_dir = ui::default_recovery_dir();
    options.autosave_interval_s = ui::AppSettings().autosave_interval_s();
  }
  ui::MainWindow window(*project, options);
  if (screenshot_path.isEmpty()) {
    // The arrangement the user left (a screenshot run uses the default one, reproducibly).
    const ui::AppSettings settings;
    window.restoreGeometry(settings.window_geometry());
    window.restoreArrangement(settings.window_state());
  }
  if (parser.isSet(command_line.view) && !window.showView(parser.value(command_line.view))) {
    std::fprintf(stderr, "meshscope: no view \"%s\" (%s)\n", qPrintable(parser.value(command_line.view)),
                 qPrintable(window.viewNames().join(QStringLiteral(", "))));
    return kExitBadInput;
  }
  window.show();
  if (screenshot_path.isEmpty()) QTimer::singleShot(0, &window, [&window] { window.session()->offerRecovery(); });
  if (parser.isSet(command_line.trace)) window.imports()->importTraces({parser.value(command_line.trace)});
  if (parser.isSet(command_line.log) && !window.imports()->importTrainingLog(parser.value(command_line.log))) {
    std::fprintf(stderr, "meshscope: cannot read the training log %s\n", qPrintable(parser.value(command_line.log)));
    return kExitBadInput;
  }
  if (parser.isSet(command_line.tradeoff_axis) && !set_tradeoff_axes(window, parser.value(command_line.tradeoff_axis)))
    return kExitBadInput;
  if (parser.isSet(command_line.pin)) {
    const QStringList ranks = parser.value(command_line.pin).split(QLatin1Char(','));
    window.waitForEvaluation();
    if (ranks.size() != 2 || !window.pinRanks(ranks[0].toInt(), ranks[1].toInt())) {
      std::fprintf(stderr, "meshscope: --pin takes two ranks of the ranked layouts, e.g. 1,3\n");
      return kExitBadInput;
    }
    window.showView(parser.isSet(command_line.view) ? parser.value(command_line.view) : QStringLiteral("compare"));
  }
  if (!apply_view_options(window, parser, command_line)) return kExitBadInput;
  // A lesson (and presenter mode) to start with.
  if (parser.isSet(command_line.lesson)) {
    bool step_ok = true;
    const int step =
        parser.isSet(command_line.lesson_step) ? parser.value(command_line.lesson_step).toInt(&step_ok) : 1;
    if (!step_ok || step < 1 || !window.lessons()->openLesson(parser.value(command_line.lesson), step)) {
      std::fprintf(stderr, "meshscope: cannot open the lesson %s: %s\n", qPrintable(parser.value(command_line.lesson)),
                   step_ok && step >= 1 ? qPrintable(window.inlineError()) : "--lesson-step takes a step number");
      return kExitBadInput;
    }
    window.lessons()->lessonPlayer()->waitForFigures();
  }
  if (parser.isSet(command_line.presenter) || (screenshot_path.isEmpty() && ui::AppSettings().presenter_mode()))
    window.lessons()->setPresenterMode(true);
  if (!screenshot_path.isEmpty()) {
    // Grab once every view shows the evaluation (and the search's best layout, if asked for).
    const QString view = parser.value(command_line.view);
    QTimer::singleShot(0, &window, [&window, &screenshot_path, view] {
      window.waitForEvaluation();
      while (window.imports()->importing()) QApplication::processEvents(QEventLoop::AllEvents, 20);
      window.waitForEvaluation();  // the imported trace compared with the prediction
      // The documented size of the screenshots (docs/screenshots), whatever the views asked for.
      window.resize(1600, 1000);
      QApplication::processEvents();
      if (!view.isEmpty()) window.showView(view, true);
      QApplication::processEvents();
      wait_for_scaling(window);
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
