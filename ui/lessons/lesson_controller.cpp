#include "ui/lessons/lesson_controller.hpp"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QMenu>
#include <QUndoStack>

#include <utility>

#include "ui/charts/chart_theme.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/kit/chart_style.hpp"
#include "ui/lessons/lesson_export.hpp"
#include "ui/lessons/lesson_player.hpp"
#include "ui/window/app_settings.hpp"
#include "ui/window/main_window.hpp"

namespace meshscope::ui {

namespace {

// Presenter mode: the application font this much larger (with the chart theme's thicker lines).
QFont presenter_font(const QFont& base) {
  QFont font = base;
  font.setPointSizeF(base.pointSizeF() * presenter_chart_theme().font_scale);
  return font;
}

const QString kLesson = QStringLiteral("lesson");

}  // namespace

LessonController::LessonController(MainWindow* window, ProjectDocument* document, Evaluator* evaluator)
    : WindowController(window), window_(window), evaluator_(evaluator), player_(new LessonPlayer(document)) {
  // Charts rebuilt by an update get the theme's font again while presenting.
  connect(window_, &MainWindow::viewsUpdated, this, [this] {
    if (presenter_on_) set_chart_fonts(window_, QApplication::font());
  });
  connect(player_, &LessonPlayer::viewRequested, this, [this](const QString& name, const QString& axis) {
    if (!axis.isEmpty()) (void)window_->setTradeoffAxes(axis);  // checked when the lesson loaded
    showLessonView(name);
  });
}

void LessonController::createDock() {
  QDockWidget* dock = window_->addView(kLesson, tr("Lesson"), player_, Qt::LeftDockWidgetArea);
  window_->splitDockWidget(window_->dock(QStringLiteral("workload")), dock, Qt::Vertical);
  dock->hide();  // until a lesson opens
}

void LessonController::showLessonView(const QString& name) {
  if (presenter_on_) {
    for (const auto& [key, dock] : window_->docks())
      if (key != name && key != kLesson) dock->hide();
  }
  if (window_->dock(name) == nullptr || !window_->showView(name)) {
    emit status(tr("This build has no \"%1\" view: the lesson's step is shown without it.").arg(name));
    return;
  }
  if (presenter_on_) window_->dock(name)->show();
}

bool LessonController::openLesson(const QString& name_or_file, int step) {
  auto lesson = load_lesson(QFile::encodeName(name_or_file).toStdString());
  if (!lesson) {
    emit inlineError(QString::fromStdString(lesson.error().to_string()));
    return false;
  }
  QDockWidget* dock = window_->dock(kLesson);
  const bool first = !dock->isVisible() && !player_->hasLesson();
  dock->show();
  // The player takes most of the left column: its text is what the room reads.
  if (first)
    window_->resizeDocks({window_->dock(QStringLiteral("workload")), dock},
                         {window_->height() * 2 / 5, window_->height() * 3 / 5}, Qt::Vertical);
  player_->setLesson(std::move(*lesson), step);
  return true;
}

// ---- Exports ------------------------------------------------------------------------------------------------------

// Brings every step up in turn for its page, then returns the project and the player to where
// they were (the steps' commands are undone: they stay in the history as redo steps).
std::function<LessonPage(int)> LessonController::lessonPages() {
  return [this](int k) {
    player_->goToStep(k);
    window_->waitForEvaluation();
    player_->waitForFigures();
    const LessonStep& step = player_->lesson()->steps[static_cast<size_t>(k - 1)];
    const QString name = QString::fromStdString(step.view);
    return LessonPage{QString::fromStdString(player_->lesson()->title),
                      player_->headingText() + QStringLiteral(" · ") + name, player_->renderedText(),
                      window_->view(name)};
  };
}

bool LessonController::exportLesson(const std::function<bool(const std::function<LessonPage(int)>&, int)>& write) {
  if (!player_->hasLesson()) {
    emit inlineError(tr("No lesson is open (File → Lessons)."));
    return false;
  }
  const int step = player_->step();
  const int index = window_->undoStack()->index();
  const bool written = write(lessonPages(), player_->stepCount());
  window_->undoStack()->setIndex(index);
  player_->goToStep(step, false);
  window_->waitForEvaluation();
  return written;
}

bool LessonController::exportLessonPdf(const QString& path) {
  const bool written = exportLesson(
      [&path](const std::function<LessonPage(int)>& pages, int steps) { return write_lesson_pdf(path, steps, pages); });
  if (!written && player_->hasLesson()) emit inlineError(tr("cannot write %1").arg(path));
  return written;
}

QStringList LessonController::exportLessonSvgFolder(const QString& folder) {
  QStringList files;
  const bool written = exportLesson([&](const std::function<LessonPage(int)>& pages, int steps) {
    files = write_lesson_svgs(folder, steps, pages);
    return !files.isEmpty();
  });
  if (!written && player_->hasLesson()) emit inlineError(tr("cannot write into %1").arg(folder));
  return files;
}

// ---- Presenter mode -----------------------------------------------------------------------------------------------

void LessonController::setPresenterMode(bool on) {
  if (on == presenter_on_) return;
  presenter_on_ = on;
  if (presenter_action_ && presenter_action_->isChecked() != on) {
    const QSignalBlocker blocker(presenter_action_);
    presenter_action_->setChecked(on);
  }
  if (on)
    presentOn();
  else
    presentOff();
  // The charts are rebuilt with the theme's pens, and take the font.
  evaluator_->republish();
  set_chart_fonts(window_, QApplication::font());
}

// The presenter's font and chart theme, and only the view being taught (and the player).
void LessonController::presentOn() {
  presenter_saved_state_ = window_->saveState();
  presenter_saved_font_ = QApplication::font();
  QApplication::setFont(presenter_font(presenter_saved_font_));
  // Widgets with a font of their own (titles) or a style sheet (tables) keep theirs otherwise: enlarge them too.
  presenter_saved_fonts_.clear();
  for (QWidget* widget : window_->findChildren<QWidget*>()) {
    if (!widget->testAttribute(Qt::WA_SetFont) && widget->styleSheet().isEmpty()) continue;
    presenter_saved_fonts_.emplace_back(widget, widget->font());
    widget->setFont(presenter_font(widget->font()));
  }
  set_chart_theme(presenter_chart_theme());
  // The view being taught: the lesson step's, else the one in front.
  QString taught;
  if (player_->hasLesson())
    taught = QString::fromStdString(player_->lesson()->steps[static_cast<size_t>(player_->step() - 1)].view);
  for (const QString& name : window_->viewsInFront())
    if (taught.isEmpty() && name != kLesson) taught = name;
  for (const auto& [name, dock] : window_->docks()) {
    const bool keep = name == taught || (name == kLesson && player_->hasLesson());
    dock->setVisible(keep);
  }
  if (player_->hasLesson()) window_->resizeDocks({window_->dock(kLesson)}, {window_->width() * 3 / 10}, Qt::Horizontal);
}

// The fonts, the chart theme and the arrangement as they were.
void LessonController::presentOff() {
  QApplication::setFont(presenter_saved_font_);
  for (const auto& [widget, font] : presenter_saved_fonts_)
    if (widget) widget->setFont(font);
  presenter_saved_fonts_.clear();
  set_chart_theme(ChartTheme{});
  window_->restoreState(presenter_saved_state_);
}

// ---- Menus --------------------------------------------------------------------------------------------------------

void LessonController::addLessonsMenu(QMenu* file) {
  QMenu* lessons = file->addMenu(tr("&Lessons"));
  for (const std::string& name : lesson_names()) {
    auto lesson = load_lesson(name);
    const QString title = lesson ? QString::fromStdString(lesson->title) : QString::fromStdString(name);
    QAction* action = lessons->addAction(QStringLiteral("%1  %2").arg(QString::fromStdString(name).left(2), title));
    connect(action, &QAction::triggered, this, [this, name] { openLesson(QString::fromStdString(name)); });
  }
  lessons->addSeparator();
  QAction* open_file = lessons->addAction(tr("Open lesson file…"));
  connect(open_file, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Open lesson"), QString(),
                                                      tr("meshscope lessons (*.json);;All files (*)"));
    if (!path.isEmpty()) openLesson(path);
  });
  lessons->addSeparator();
  // The step keys work in the whole window (Right / Left too, while the player has focus).
  QAction* next = lessons->addAction(tr("Next step"));
  next->setShortcuts({QKeySequence(Qt::Key_PageDown), QKeySequence(Qt::ALT | Qt::Key_Right)});
  connect(next, &QAction::triggered, this, [this] { player_->next(); });
  QAction* back = lessons->addAction(tr("Previous step"));
  back->setShortcuts({QKeySequence(Qt::Key_PageUp), QKeySequence(Qt::ALT | Qt::Key_Left)});
  connect(back, &QAction::triggered, this, [this] { player_->back(); });
  for (QAction* action : {next, back}) {
    action->setShortcutContext(Qt::WindowShortcut);
    window_->addAction(action);  // active while the menu is closed
  }
}

void LessonController::addExportActions(QMenu* export_menu) {
  QAction* pdf = export_menu->addAction(tr("Lesson as PDF…"));
  connect(pdf, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export lesson"), QString(), tr("PDF (*.pdf)"));
    if (!path.isEmpty()) exportLessonPdf(path);
  });
  QAction* svg = export_menu->addAction(tr("Lesson as SVG folder…"));
  connect(svg, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(window_, tr("Export lesson as SVGs into"));
    if (!folder.isEmpty()) exportLessonSvgFolder(folder);
  });
}

void LessonController::addPresenterAction(QMenu* view_menu) {
  view_menu->addSeparator();
  presenter_action_ = view_menu->addAction(tr("&Presenter mode"));
  presenter_action_->setCheckable(true);
  presenter_action_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)});
  presenter_action_->setToolTip(tr("Large fonts, thick lines, high contrast; only the view being taught"));
  connect(presenter_action_, &QAction::toggled, this, [this](bool on) {
    setPresenterMode(on);
    AppSettings().set_presenter_mode(on);
  });
}

}  // namespace meshscope::ui
