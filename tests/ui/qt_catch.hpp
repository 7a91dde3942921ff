#pragma once
// Lets Catch2 print QStrings in failed assertions, and collects Qt warnings (the model tester
// reports failures as warnings of category qt.modeltest).
#include <catch2/catch.hpp>

#include <QString>
#include <QStringList>
#include <QtGlobal>

#include <string>

namespace Catch {
template <>
struct StringMaker<QString> {
  static std::string convert(const QString& text) { return '"' + text.toStdString() + '"'; }
};
}  // namespace Catch

namespace meshscope::test {

// Records every warning and critical message while it lives.
class QtWarningRecorder {
 public:
  QtWarningRecorder() : previous_(qInstallMessageHandler(&QtWarningRecorder::record)) { warnings().clear(); }
  ~QtWarningRecorder() { qInstallMessageHandler(previous_); }
  QtWarningRecorder(const QtWarningRecorder&) = delete;
  QtWarningRecorder& operator=(const QtWarningRecorder&) = delete;

  [[nodiscard]] static QStringList& warnings() {
    static QStringList recorded;
    return recorded;
  }

 private:
  static void record(QtMsgType type, const QMessageLogContext&, const QString& message) {
    if (type == QtWarningMsg || type == QtCriticalMsg || type == QtFatalMsg) warnings() << message;
  }
  QtMessageHandler previous_;
};

}  // namespace meshscope::test
