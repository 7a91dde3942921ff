#include "ui/lessons/lesson_export.hpp"

#include <QDir>
#include <QFileInfo>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>

namespace meshscope::ui {

namespace {

constexpr QSize kSvgPageSize(1600, 1000);

}  // namespace

void paint_lesson_page(QPainter& painter, const QSizeF& size, const LessonPage& page) {
  const qreal margin = size.width() * 0.04;
  const qreal width = size.width() - 2 * margin;
  painter.fillRect(QRectF(QPointF(0, 0), size), Qt::white);
  painter.setPen(Qt::black);
  // Text in sizes relative to the page, whatever the device's resolution.
  QFont title_font = painter.font();
  title_font.setPixelSize(static_cast<int>(size.height() * 0.045));
  title_font.setBold(true);
  QFont body_font = title_font;
  body_font.setBold(false);
  body_font.setPixelSize(static_cast<int>(size.height() * 0.03));
  qreal y = margin;
  painter.setFont(title_font);
  QRectF used;
  painter.drawText(QRectF(margin, y, width, size.height()), Qt::TextWordWrap, page.title, &used);
  y += used.height() + margin * 0.3;
  painter.setFont(body_font);
  painter.setPen(QColor(0x40, 0x40, 0x40));
  painter.drawText(QRectF(margin, y, width, size.height()), Qt::TextWordWrap, page.heading, &used);
  y += used.height() + margin * 0.3;
  painter.setPen(Qt::black);
  painter.drawText(QRectF(margin, y, width, size.height() - y), Qt::TextWordWrap, page.text, &used);
  y += used.height() + margin * 0.5;
  if (page.view == nullptr || page.view->width() <= 0 || page.view->height() <= 0) return;
  // The view, scaled to fit what is left of the page, aspect kept.
  const QRectF room(margin, y, width, size.height() - y - margin);
  if (room.height() <= 0) return;
  const QSizeF view_size = page.view->size();
  const qreal scale = std::min(room.width() / view_size.width(), room.height() / view_size.height());
  painter.save();
  painter.translate(room.left() + (room.width() - view_size.width() * scale) / 2, room.top());
  painter.scale(scale, scale);
  page.view->render(&painter, QPoint(), QRegion(), QWidget::DrawChildren);
  painter.restore();
}

bool write_lesson_pdf(const QString& path, int steps, const std::function<LessonPage(int)>& page_of) {
  QPdfWriter writer(path);
  writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF()));
  writer.setResolution(150);
  writer.setTitle(QStringLiteral("meshscope lesson"));
  QPainter painter;
  if (!painter.begin(&writer)) return false;
  const QSizeF size(writer.width(), writer.height());
  for (int k = 1; k <= steps; ++k) {
    if (k > 1) writer.newPage();
    paint_lesson_page(painter, size, page_of(k));
  }
  painter.end();
  return QFileInfo(path).size() > 0;
}

QStringList write_lesson_svgs(const QString& folder, int steps, const std::function<LessonPage(int)>& page_of) {
  if (!QDir().mkpath(folder)) return {};
  QStringList written;
  for (int k = 1; k <= steps; ++k) {
    const QString path = QDir(folder).filePath(QStringLiteral("step-%1.svg").arg(k, 2, 10, QLatin1Char('0')));
    const LessonPage page = page_of(k);
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(kSvgPageSize);
    generator.setViewBox(QRect(QPoint(0, 0), kSvgPageSize));
    generator.setTitle(page.title + QStringLiteral(" — ") + page.heading);
    generator.setDescription(page.text);
    QPainter painter;
    if (!painter.begin(&generator)) return {};
    paint_lesson_page(painter, kSvgPageSize, page);
    painter.end();
    if (QFileInfo(path).size() == 0) return {};
    written << path;
  }
  return written;
}

}  // namespace meshscope::ui
