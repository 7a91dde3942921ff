#pragma once
// The lesson player (the "lesson" dock; docs/lessons.md): the lesson's title, "Step k of n", the
// step's text with its figures filled from the cost core (in the background: the current project's
// figures, so an edit after a step updates them; "prev." figures are the previous step's), and
// Back / Next. Going to a step applies its project to the document as one undoable command
// ("Lesson: step 3") and asks for its view (viewRequested). Keys: Page Down / Page Up and
// Alt+Right / Alt+Left in the whole window (the main window's actions), Right / Left while the
// player has focus.
#include <QFutureWatcher>
#include <QWidget>

#include <memory>
#include <optional>

#include "core/session/lesson.hpp"
#include "ui/document/project_document.hpp"

class QLabel;
class QPushButton;
class QTextBrowser;

namespace meshscope::ui {

class LessonPlayer final : public QWidget {
  Q_OBJECT

 public:
  explicit LessonPlayer(ProjectDocument* document, QWidget* parent = nullptr);

  // Starts `lesson` at step `step` (1-based, clamped), applying it.
  void setLesson(Lesson lesson, int step = 1);
  [[nodiscard]] bool hasLesson() const { return lesson_.has_value(); }
  [[nodiscard]] const Lesson* lesson() const { return lesson_ ? &*lesson_ : nullptr; }
  [[nodiscard]] int step() const { return step_; }  // 1-based; 0 without a lesson
  [[nodiscard]] int stepCount() const;
  // Applies step k (as one undoable command) and requests its view; false when out of range.
  // apply = false: shows step k without touching the project (after an export undid its steps).
  bool goToStep(int k, bool apply = true);
  bool next() { return goToStep(step_ + 1); }
  bool back() { return goToStep(step_ - 1); }

  // The text shown: the step with its figures, or why a figure cannot be computed.
  [[nodiscard]] QString renderedText() const { return rendered_text_; }
  [[nodiscard]] QString headingText() const;
  // Blocks until the figures of the latest request are shown (tests, exports).
  void waitForFigures();

 signals:
  // The step's view ("memory", "tradeoff", ...) and the tradeoff view's axis (may be empty).
  void viewRequested(const QString& view, const QString& axis);
  void stepShown(int step);

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  void refresh();
  void show_rendered(const QString& text);
  void update_buttons();

  ProjectDocument* document_;
  std::optional<Lesson> lesson_;
  int step_ = 0;
  uint64_t generation_ = 0;
  QString rendered_text_;
  QLabel* title_ = nullptr;
  QLabel* heading_ = nullptr;
  QTextBrowser* text_ = nullptr;
  QPushButton* back_ = nullptr;
  QPushButton* next_ = nullptr;
  struct Rendered {
    uint64_t generation = 0;
    QString text;
  };
  QFutureWatcher<Rendered>* watcher_ = nullptr;
};

}  // namespace meshscope::ui
