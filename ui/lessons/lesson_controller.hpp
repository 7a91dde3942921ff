#pragma once
// Lessons and presenter mode (docs/lessons.md): the lesson dock and its player, File → Lessons with the
// step keys, File → Export → Lesson as PDF / SVG folder, and View → Presenter mode (larger fonts, thicker
// chart lines, high contrast, only the taught view and the player).
#include <QByteArray>
#include <QFont>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <functional>
#include <utility>
#include <vector>

#include "ui/window/window_controller.hpp"

class QAction;
class QMenu;
class QWidget;

namespace meshscope::ui {

class Evaluator;
class LessonPlayer;
class MainWindow;
class ProjectDocument;
struct LessonPage;

class LessonController final : public WindowController {
  Q_OBJECT

 public:
  LessonController(MainWindow* window, ProjectDocument* document, Evaluator* evaluator);

  // The "lesson" dock below the workload panel, hidden until a lesson opens.
  void createDock();
  // Opens an embedded lesson (by name) or a lesson file at `step`; on error the message is shown inline.
  bool openLesson(const QString& name_or_file, int step = 1);
  [[nodiscard]] LessonPlayer* lessonPlayer() const { return player_; }
  // View → Presenter mode: larger fonts, thicker chart lines, high contrast, only the taught view and the player.
  void setPresenterMode(bool on);
  [[nodiscard]] bool presenterMode() const { return presenter_on_; }
  // File → Export → Lesson as PDF (one page per step) / as SVG folder (the files written; empty on error).
  bool exportLessonPdf(const QString& path);
  QStringList exportLessonSvgFolder(const QString& folder);

  // File → Lessons ▸ (and the step keys), File → Export → the lesson exports, View → Presenter mode.
  void addLessonsMenu(QMenu* file);
  void addExportActions(QMenu* export_menu);
  void addPresenterAction(QMenu* view_menu);

 private:
  void showLessonView(const QString& name);
  std::function<LessonPage(int)> lessonPages();
  bool exportLesson(const std::function<bool(const std::function<LessonPage(int)>&, int)>& write);
  void presentOn();
  void presentOff();

  MainWindow* window_;
  Evaluator* evaluator_;
  LessonPlayer* player_;
  QAction* presenter_action_ = nullptr;
  bool presenter_on_ = false;
  QByteArray presenter_saved_state_;
  QFont presenter_saved_font_;
  std::vector<std::pair<QPointer<QWidget>, QFont>> presenter_saved_fonts_;  // widgets with their own font
};

}  // namespace meshscope::ui
