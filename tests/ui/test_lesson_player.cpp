// The lesson player and presenter mode (docs/lessons.md), offscreen: a whole lesson stepped
// through with the keys, each step one undoable command that sets the step's project and raises its
// view; presenter mode on and off restores the docks and the font; the exports' page and file counts.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QRegularExpression>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <algorithm>

#include "core/project/project.hpp"
#include "core/session/lesson.hpp"
#include "qt_catch.hpp"
#include "ui/explore/tradeoff_view.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/lessons/lesson_controller.hpp"
#include "ui/lessons/lesson_player.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

constexpr const char* kLesson = "05-pipeline-parallelism";

Lesson lesson_or_fail(const std::string& name) {
  auto lesson = load_lesson(name);
  REQUIRE(lesson);
  return *lesson;
}

// The parts of the project a lesson sets (not the app's view state).
void check_is_step(const Project& project, const Lesson& lesson, int k) {
  const Project& expected = lesson.steps[static_cast<size_t>(k - 1)].project;
  CHECK(project.layout == expected.layout);
  CHECK(project.training == expected.training);
  CHECK(project.model == expected.model);
  CHECK(project.cluster == expected.cluster);
}

// The dock of `name` is the one in front of its tab group (visible on screen).
bool in_front(const ui::MainWindow& window, const QString& name) {
  auto* dock = window.findChild<QDockWidget*>(name + QStringLiteral("_dock"));
  return dock != nullptr && dock->isVisible() && !dock->visibleRegion().isEmpty();
}

}  // namespace

TEST_CASE("lesson player: Page Down / Page Up step through a whole lesson, each step one undoable command") {
  Result<Project> project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.show();
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  REQUIRE(window.lessons()->openLesson(QString::fromLatin1(kLesson)));
  const Lesson lesson = lesson_or_fail(kLesson);
  ui::LessonPlayer* player = window.lessons()->lessonPlayer();
  REQUIRE(player->step() == 1);
  REQUIRE(player->stepCount() == static_cast<int>(lesson.steps.size()));
  window.waitForEvaluation();
  check_is_step(window.project(), lesson, 1);
  CHECK(window.undoStack()->undoText() == QStringLiteral("Lesson: step 1"));

  for (int k = 2; k <= player->stepCount(); ++k) {
    QTest::keyClick(&window, Qt::Key_PageDown);
    window.waitForEvaluation();
    INFO("step " << k);
    REQUIRE(player->step() == k);
    check_is_step(window.project(), lesson, k);
    CHECK(window.undoStack()->undoText() == QStringLiteral("Lesson: step %1").arg(k));
    CHECK(in_front(window, QString::fromStdString(lesson.steps[static_cast<size_t>(k - 1)].view)));
    player->waitForFigures();
    CHECK_FALSE(player->renderedText().contains(QLatin1Char('{')));
    CHECK_FALSE(player->renderedText().contains(QStringLiteral("cannot be computed")));
  }
  // Past the end nothing happens.
  QTest::keyClick(&window, Qt::Key_PageDown);
  CHECK(player->step() == player->stepCount());

  // Back is exact: the previous step's project again (Alt+Left, and Left in the player).
  QTest::keyClick(&window, Qt::Key_Left, Qt::AltModifier);
  window.waitForEvaluation();
  CHECK(player->step() == player->stepCount() - 1);
  check_is_step(window.project(), lesson, player->stepCount() - 1);
  player->setFocus();
  QTest::keyClick(player, Qt::Key_Left);
  CHECK(player->step() == player->stepCount() - 2);
  QTest::keyClick(&window, Qt::Key_PageUp);
  CHECK(player->step() == player->stepCount() - 3);
  check_is_step(window.project(), lesson, player->stepCount() - 3);

  // Edit → Undo undoes the last step's command: the project is the step before it again.
  window.undoStack()->undo();
  window.waitForEvaluation();
  check_is_step(window.project(), lesson, player->stepCount() - 2);
}

TEST_CASE("lesson player: the figures are computed live, and an edit after a step updates them") {
  Result<Project> project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  REQUIRE(window.lessons()->openLesson(QStringLiteral("01-two-memory-budgets"), 3));
  ui::LessonPlayer* player = window.lessons()->lessonPlayer();
  player->waitForFigures();
  ClusterCache cache;
  auto rendered = render_lesson_step(*player->lesson(), 3, cache);
  REQUIRE(rendered);
  CHECK(player->renderedText() == QString::fromStdString(rendered->text));
  CHECK(player->headingText() == QStringLiteral("Step 3 of 5"));
  // A lesson that cannot be read: the message inline, the lesson shown before stays.
  CHECK_FALSE(window.lessons()->openLesson(QStringLiteral("/no/such/lesson.json")));
  CHECK(window.inlineError().contains(QStringLiteral("lesson")));
  CHECK(player->lesson()->name == "01-two-memory-budgets");
}

TEST_CASE("lesson player: a trade-off step raises the Trade-offs view on its axes") {
  Result<Project> project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.show();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("tradeoff.json"));
  QFile file(path);
  REQUIRE(file.open(QIODevice::WriteOnly));
  file.write(R"({"format": "meshscope-lesson", "title": "trade-offs",
    "steps": [{"text": "TP trade-off: {mfu_percent}.", "view": "tradeoff", "axis": "pp"},
              {"text": "TP and PP: {mfu_percent}.", "view": "tradeoff", "axis": "tp,pp"},
              {"text": "Memory: {peak_memory_gib}.", "view": "memory"}]})");
  file.close();
  REQUIRE(window.lessons()->openLesson(path));
  auto* tradeoff = window.findChild<ui::TradeoffView*>();
  REQUIRE(tradeoff != nullptr);
  CHECK(window.findChild<QDockWidget*>(QStringLiteral("tradeoff_dock"))->isVisible());
  CHECK(tradeoff->axis() == TradeoffAxis::pp);
  CHECK_FALSE(tradeoff->axis2());
  window.lessons()->lessonPlayer()->next();
  CHECK(tradeoff->axis() == TradeoffAxis::tp);
  CHECK(tradeoff->axis2() == TradeoffAxis::pp);
  window.lessons()->lessonPlayer()->next();  // no axis: the view keeps what it shows
  CHECK(tradeoff->axis2() == TradeoffAxis::pp);
  CHECK_FALSE(window.setTradeoffAxes(QStringLiteral("tq")));
  CHECK_FALSE(window.setTradeoffAxes(QStringLiteral("tp,pp,cp")));
}

TEST_CASE("presenter mode: only the taught view and the player, larger fonts, thicker lines; off restores all") {
  Result<Project> project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.show();
  REQUIRE(window.lessons()->openLesson(QString::fromLatin1(kLesson), 3));  // step 3 shows the memory view
  window.waitForEvaluation();
  const QFont font_before = QApplication::font();
  QStringList visible_before;
  for (const QString& name : window.viewNames())
    if (window.findChild<QDockWidget*>(name + QStringLiteral("_dock"))->isVisible()) visible_before << name;
  REQUIRE(visible_before.size() > 2);

  window.lessons()->setPresenterMode(true);
  CHECK(window.lessons()->presenterMode());
  CHECK(QApplication::font().pointSizeF() > font_before.pointSizeF() * 1.5);
  CHECK(ui::chart_theme() == ui::presenter_chart_theme());
  CHECK(ui::themed_width(2) > 2);
  QStringList visible;
  for (const QString& name : window.viewNames())
    if (window.findChild<QDockWidget*>(name + QStringLiteral("_dock"))->isVisible()) visible << name;
  visible.sort();
  CHECK(visible == QStringList{QStringLiteral("lesson"), QStringLiteral("memory")});
  // A step to another view keeps the room on one view.
  QTest::keyClick(window.lessons()->lessonPlayer(), Qt::Key_Right);
  window.waitForEvaluation();
  visible.clear();
  for (const QString& name : window.viewNames())
    if (window.findChild<QDockWidget*>(name + QStringLiteral("_dock"))->isVisible()) visible << name;
  visible.sort();
  CHECK(visible == QStringList{QStringLiteral("lesson"), QStringLiteral("pipeline")});

  window.lessons()->setPresenterMode(false);
  CHECK_FALSE(window.lessons()->presenterMode());
  CHECK(QApplication::font() == font_before);
  CHECK(ui::chart_theme() == ui::ChartTheme{});
  QStringList visible_after;
  for (const QString& name : window.viewNames())
    if (window.findChild<QDockWidget*>(name + QStringLiteral("_dock"))->isVisible()) visible_after << name;
  CHECK(visible_after == visible_before);
}

TEST_CASE("lesson export: one PDF page and one SVG file per step, with the step's text; the project is kept") {
  Result<Project> project = default_project();
  REQUIRE(project);
  ui::MainWindow window(*project);
  window.show();
  REQUIRE(window.lessons()->openLesson(QStringLiteral("01-two-memory-budgets"), 2));
  window.waitForEvaluation();
  const Lesson lesson = lesson_or_fail("01-two-memory-budgets");
  const Project before = window.project();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());

  const QString pdf = dir.filePath(QStringLiteral("lesson.pdf"));
  REQUIRE(window.lessons()->exportLessonPdf(pdf));
  QFile file(pdf);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray bytes = file.readAll();
  CHECK(bytes.startsWith("%PDF"));
  // Page objects: "/Type /Page" not followed by "s" (the page tree is "/Type /Pages").
  CHECK(QString::fromLatin1(bytes).count(QRegularExpression(QStringLiteral("/Type\\s*/Page(?!s)"))) ==
        static_cast<int>(lesson.steps.size()));
  CHECK(window.lessons()->lessonPlayer()->step() == 2);
  CHECK(window.project().layout == before.layout);
  CHECK(window.project().mode == before.mode);

  const QStringList svgs = window.lessons()->exportLessonSvgFolder(dir.filePath(QStringLiteral("svg")));
  REQUIRE(svgs.size() == static_cast<int>(lesson.steps.size()));
  ClusterCache cache;
  for (int k = 1; k <= svgs.size(); ++k) {
    QFile svg(svgs[k - 1]);
    REQUIRE(svg.open(QIODevice::ReadOnly));
    const QString content = QString::fromUtf8(svg.readAll());
    CHECK(content.contains(QStringLiteral("<svg")));
    auto rendered = render_lesson_step(lesson, k, cache);
    REQUIRE(rendered);
    // The step's words are in the file (as text; the description holds the whole step).
    const QString first_words = QString::fromStdString(rendered->text).section(QLatin1Char(' '), 0, 2);
    CHECK(content.contains(first_words.toHtmlEscaped()));
  }
  CHECK(window.project().layout == before.layout);
  // For a look at the pages: MESHSCOPE_SCREENSHOT_DIR=dir test_ui "lesson export*".
  if (const QString out = qEnvironmentVariable("MESHSCOPE_SCREENSHOT_DIR"); !out.isEmpty()) {
    QFile::copy(pdf, QDir(out).filePath(QStringLiteral("lesson.pdf")));
    QFile::copy(svgs.front(), QDir(out).filePath(QStringLiteral("lesson-step-01.svg")));
  }
}
