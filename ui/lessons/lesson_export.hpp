#pragma once
// A lesson as pages (File → Export → Lesson as PDF… / Lesson as SVG folder…): one page per step with
// the lesson's title, "Step k of n", the step's text (figures filled) and a render of the step's view.
#include <QPixmap>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

class QPainter;
class QWidget;

namespace meshscope::ui {

struct LessonPage {
  QString title;            // the lesson's
  QString heading;          // "Step 2 of 5 · pipeline"
  QString text;             // the rendered step
  QWidget* view = nullptr;  // drawn below the text (render(): vectors in an SVG); may be null
};

// Draws one page into `painter` over `size` (device pixels of the target).
void paint_lesson_page(QPainter& painter, const QSizeF& size, const LessonPage& page);

// `page_of(k)` brings step k (1-based) up and describes it; each is drawn as it comes. An A4
// landscape PDF (QPdfWriter), one page per step. False when the file cannot be written.
bool write_lesson_pdf(const QString& path, int steps, const std::function<LessonPage(int)>& page_of);
// One SVG per step in `folder` (created): step-01.svg, step-02.svg, ...; the written paths, empty on error.
QStringList write_lesson_svgs(const QString& folder, int steps, const std::function<LessonPage(int)>& page_of);

}  // namespace meshscope::ui
