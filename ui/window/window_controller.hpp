#pragma once
// The base of the main window's controllers (the file session, imports, exports, calibration, lessons and
// presenter mode): each does one job for the window and reports through two signals that the window shows, an
// inline error (the summary strip's banner) and the status line.
#include <QObject>
#include <QString>

namespace meshscope::ui {

class WindowController : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

 signals:
  // A file that failed to open, import or export, and why; "" clears the banner.
  void inlineError(const QString& message);
  void status(const QString& message);
};

}  // namespace meshscope::ui
