// The main window's lessons and presenter mode (docs/lessons.md): the lesson dock, File → Lessons,
// the step keys, File → Export → Lesson as PDF / SVG folder, and View → Presenter mode.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QUndoStack>

#include "ui/charts/chart_theme.hpp"
#include "ui/explore/tradeoff_view.hpp"
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

}  // namespace

void MainWindow::create_lesson_dock() {
  lesson_player_ = new LessonPlayer(document_);
  // Charts rebuilt by an update get the theme's font again while presenting.
  connect(this, &MainWindow::viewsUpdated, this, [this] {
    if (presenter_on_) set_chart_fonts(this, QApplication::font());
  });
  connect(lesson_player_, &LessonPlayer::viewRequested, this, [this](const QString& name, const QString& axis) {
    if (!axis.isEmpty()) (void)setTradeoffAxes(axis);  // checked when the lesson loaded
    show_lesson_view(name);
  });
  QDockWidget* dock = add_dock(QStringLiteral("lesson"), tr("Lesson"), lesson_player_, Qt::LeftDockWidgetArea);
  splitDockWidget(docks_[QStringLiteral("workload")], dock, Qt::Vertical);
  dock->hide();  // until a lesson opens
}

bool MainWindow::setTradeoffAxes(const QString& axes) {
  auto* tradeoff = qobject_cast<TradeoffView*>(view(QStringLiteral("tradeoff")));
  const auto parsed = parse_tradeoff_axes(axes.toStdString());
  if (tradeoff == nullptr || !parsed) return false;
  tradeoff->setAxes(parsed->axis, parsed->axis2);
  return true;
}

void MainWindow::show_lesson_view(const QString& name) {
  if (presenter_on_) {
    for (const auto& [key, dock] : docks_)
      if (key != name && key != QStringLiteral("lesson")) dock->hide();
  }
  if (docks_.count(name) == 0 || !showView(name)) {
    status_->setText(tr("This build has no \"%1\" view: the lesson's step is shown without it.").arg(name));
    return;
  }
  if (presenter_on_) docks_[name]->show();
}

void MainWindow::add_lessons_menu(QMenu* file) {
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
    const QString path = QFileDialog::getOpenFileName(this, tr("Open lesson"), QString(),
                                                      tr("meshscope lessons (*.json);;All files (*)"));
    if (!path.isEmpty()) openLesson(path);
  });
  lessons->addSeparator();
  // The step keys work in the whole window (Right / Left too, while the player has focus).
  QAction* next = lessons->addAction(tr("Next step"));
  next->setShortcuts({QKeySequence(Qt::Key_PageDown), QKeySequence(Qt::ALT | Qt::Key_Right)});
  connect(next, &QAction::triggered, this, [this] { lesson_player_->next(); });
  QAction* back = lessons->addAction(tr("Previous step"));
  back->setShortcuts({QKeySequence(Qt::Key_PageUp), QKeySequence(Qt::ALT | Qt::Key_Left)});
  connect(back, &QAction::triggered, this, [this] { lesson_player_->back(); });
  for (QAction* action : {next, back}) {
    action->setShortcutContext(Qt::WindowShortcut);
    addAction(action);  // active while the menu is closed
  }
}

bool MainWindow::openLesson(const QString& name_or_file, int step) {
  auto lesson = load_lesson(QFile::encodeName(name_or_file).toStdString());
  if (!lesson) {
    show_inline_error(QString::fromStdString(lesson.error().to_string()));
    return false;
  }
  QDockWidget* dock = docks_[QStringLiteral("lesson")];
  const bool first = !dock->isVisible() && !lesson_player_->hasLesson();
  dock->show();
  // The player takes most of the left column: its text is what the room reads.
  if (first)
    resizeDocks({docks_[QStringLiteral("workload")], dock}, {height() * 2 / 5, height() * 3 / 5}, Qt::Vertical);
  lesson_player_->setLesson(std::move(*lesson), step);
  return true;
}

void MainWindow::add_lesson_exports(QMenu* export_menu) {
  QAction* pdf = export_menu->addAction(tr("Lesson as PDF…"));
  connect(pdf, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export lesson"), QString(), tr("PDF (*.pdf)"));
    if (!path.isEmpty()) exportLessonPdf(path);
  });
  QAction* svg = export_menu->addAction(tr("Lesson as SVG folder…"));
  connect(svg, &QAction::triggered, this, [this] {
    const QString folder = QFileDialog::getExistingDirectory(this, tr("Export lesson as SVGs into"));
    if (!folder.isEmpty()) exportLessonSvgFolder(folder);
  });
}

// Brings every step up in turn for its page, then returns the project and the player to where
// they were (the steps' commands are undone: they stay in the history as redo steps).
std::function<LessonPage(int)> MainWindow::lesson_pages() {
  return [this](int k) {
    lesson_player_->goToStep(k);
    waitForEvaluation();
    lesson_player_->waitForFigures();
    const LessonStep& step = lesson_player_->lesson()->steps[static_cast<size_t>(k - 1)];
    const QString name = QString::fromStdString(step.view);
    return LessonPage{QString::fromStdString(lesson_player_->lesson()->title),
                      lesson_player_->headingText() + QStringLiteral(" · ") + name, lesson_player_->renderedText(),
                      view(name)};
  };
}

bool MainWindow::export_lesson(const std::function<bool(const std::function<LessonPage(int)>&, int)>& write) {
  if (!lesson_player_->hasLesson()) {
    show_inline_error(tr("No lesson is open (File → Lessons)."));
    return false;
  }
  const int step = lesson_player_->step();
  const int index = undoStack()->index();
  const bool written = write(lesson_pages(), lesson_player_->stepCount());
  undoStack()->setIndex(index);
  lesson_player_->goToStep(step, false);
  waitForEvaluation();
  return written;
}

bool MainWindow::exportLessonPdf(const QString& path) {
  const bool written = export_lesson(
      [&path](const std::function<LessonPage(int)>& pages, int steps) { return write_lesson_pdf(path, steps, pages); });
  if (!written && lesson_player_->hasLesson()) show_inline_error(tr("cannot write %1").arg(path));
  return written;
}

QStringList MainWindow::exportLessonSvgFolder(const QString& folder) {
  QStringList files;
  const bool written = export_lesson([&](const std::function<LessonPage(int)>& pages, int steps) {
    files = write_lesson_svgs(folder, steps, pages);
    return !files.isEmpty();
  });
  if (!written && lesson_player_->hasLesson()) show_inline_error(tr("cannot write into %1").arg(folder));
  return files;
}

void MainWindow::add_presenter_action(QMenu* view_menu) {
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

void MainWindow::setPresenterMode(bool on) {
  if (on == presenter_on_) return;
  presenter_on_ = on;
  if (presenter_action_ && presenter_action_->isChecked() != on) {
    const QSignalBlocker blocker(presenter_action_);
    presenter_action_->setChecked(on);
  }
  if (on) {
    presenter_saved_state_ = saveState();
    presenter_saved_font_ = QApplication::font();
    QApplication::setFont(presenter_font(presenter_saved_font_));
    // Widgets with a font of their own (titles) or a style sheet (tables) keep theirs otherwise: enlarge them too.
    presenter_saved_fonts_.clear();
    for (QWidget* widget : findChildren<QWidget*>()) {
      if (!widget->testAttribute(Qt::WA_SetFont) && widget->styleSheet().isEmpty()) continue;
      presenter_saved_fonts_.emplace_back(widget, widget->font());
      widget->setFont(presenter_font(widget->font()));
    }
    set_chart_theme(presenter_chart_theme());
    // The view being taught: the lesson step's, else the one in front.
    QString taught;
    if (lesson_player_->hasLesson())
      taught =
          QString::fromStdString(lesson_player_->lesson()->steps[static_cast<size_t>(lesson_player_->step() - 1)].view);
    for (const auto& [name, dock] : docks_)
      if (taught.isEmpty() && name != QStringLiteral("workload") && name != QStringLiteral("lesson") &&
          !dock->visibleRegion().isEmpty())
        taught = name;
    for (const auto& [name, dock] : docks_) {
      const bool keep = name == taught || (name == QStringLiteral("lesson") && lesson_player_->hasLesson());
      dock->setVisible(keep);
    }
    if (lesson_player_->hasLesson())
      resizeDocks({docks_[QStringLiteral("lesson")]}, {width() * 3 / 10}, Qt::Horizontal);
  } else {
    QApplication::setFont(presenter_saved_font_);
    for (const auto& [widget, font] : presenter_saved_fonts_)
      if (widget) widget->setFont(font);
    presenter_saved_fonts_.clear();
    set_chart_theme(ChartTheme{});
    restoreState(presenter_saved_state_);
  }
  // The charts are rebuilt with the theme's pens, and take the font.
  if (evaluation_) show_evaluation(evaluation_);
  set_chart_fonts(this, QApplication::font());
}

}  // namespace meshscope::ui
