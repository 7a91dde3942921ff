#include "ui/window/export_controller.hpp"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QPainter>
#include <QSvgGenerator>

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/framework/framework.hpp"
#include "core/report/launcher_export.hpp"
#include "core/session/export.hpp"
#include "ui/document/evaluator.hpp"
#include "ui/document/project_document.hpp"
#include "ui/window/main_window.hpp"
#include "ui/window/recovery.hpp"

namespace meshscope::ui {

namespace {

// The save dialog's filter for a launcher config of `format`.
QString launcher_file_filter(LauncherFormat format) {
  switch (format) {
    case LauncherFormat::torchtitan:
      return QObject::tr("TOML (*.toml)");
    case LauncherFormat::megatron:
      return QObject::tr("Shell scripts (*.sh)");
    case LauncherFormat::deepspeed:
      break;
  }
  return QObject::tr("JSON (*.json)");
}

}  // namespace

ExportController::ExportController(MainWindow* window, ProjectDocument* document, Evaluator* evaluator)
    : WindowController(window), window_(window), document_(document), evaluator_(evaluator) {}

bool ExportController::exportViewImage(const QString& name, const QString& path) {
  QWidget* widget = window_->view(name);
  if (widget == nullptr) {
    emit inlineError(tr("No view named %1").arg(name));
    return false;
  }
  if (path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)) {
    QSvgGenerator generator;
    generator.setFileName(path);
    generator.setSize(widget->size());
    generator.setViewBox(widget->rect());
    generator.setTitle(QStringLiteral("meshscope — %1").arg(name));
    QPainter painter;
    if (!painter.begin(&generator)) {
      emit inlineError(tr("cannot write %1").arg(path));
      return false;
    }
    widget->render(&painter);
    painter.end();
    return QFileInfo(path).size() > 0;
  }
  if (!widget->grab().save(path)) {
    emit inlineError(tr("cannot write %1").arg(path));
    return false;
  }
  return true;
}

bool ExportController::exportRankedCsv(const QString& path) {
  const std::shared_ptr<const SearchEvaluation>& search = evaluator_->latestSearch();
  if (!search || (!search->training && !search->serving)) {
    emit inlineError(tr("No ranked layouts yet: the search has not finished."));
    return false;
  }
  // The tables as core writes them (core/session/export.hpp).
  const std::string text =
      search->training ? ranked_training_csv(*search->training) : ranked_serving_csv(*search->serving);
  const QByteArray csv = QByteArray::fromStdString(text);
  QString error;
  if (!write_file_atomically(path, csv, error)) {
    emit inlineError(error);
    return false;
  }
  return true;
}

bool ExportController::exportEstimateJson(const QString& path) {
  const std::shared_ptr<const Evaluation>& evaluation = evaluator_->latest();
  if (!evaluation || (!evaluation->estimate && !evaluation->budget)) {
    emit inlineError(tr("Nothing to export: the layout is not valid."));
    return false;
  }
  // The document as core writes it (core/session/export.hpp).
  const nlohmann::json doc = estimate_export_json(*evaluation);
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(doc.dump(2) + "\n"), error)) {
    emit inlineError(error);
    return false;
  }
  return true;
}

void ExportController::exportRankedLayout(const RankedLayout& layout) {
  Framework framework = document_->project().training.framework;
  if (framework == Framework::any) {
    const std::vector<Framework> running = frameworks_in(layout.frameworks);
    if (!running.empty()) framework = running.front();
  }
  const auto format = launcher_format_of(framework);
  if (!format) {
    emit inlineError(
        tr("Not exported \u2014 no framework meshscope knows runs this layout (its schedule or options)."));
    return;
  }
  const QString path =
      QFileDialog::getSaveFileName(window_, tr("Export for %1").arg(QString::fromUtf8(enum_name(framework).data())),
                                   QString(), launcher_file_filter(*format));
  if (path.isEmpty()) return;
  Project ranked = project_with_ranked_layout(document_->project(), layout);
  ranked.training.framework = framework;
  writeLauncherConfig(ranked, *format, path);
}

bool ExportController::exportLauncherConfig(LauncherFormat format, const QString& path) {
  return writeLauncherConfig(document_->project(), format, path);
}

bool ExportController::writeLauncherConfig(const Project& source, LauncherFormat format, const QString& path) {
  auto exported = export_launcher_config(source, format);
  if (!exported) {
    emit inlineError(QString::fromStdString(exported.error().to_string()));
    return false;
  }
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(exported->text), error)) {
    emit inlineError(tr("Not exported — %1.").arg(error));
    return false;
  }
  emit inlineError({});
  QStringList fill;
  for (const auto& item : exported->placeholders) fill << QString::fromStdString(item.substr(0, item.find(':')));
  emit status(tr("Exported %1; fill in %2").arg(path, fill.join(QStringLiteral(", "))));
  return true;
}

// ---- The menu -----------------------------------------------------------------------------------------------------

QMenu* ExportController::addMenu(QMenu* file) {
  QMenu* export_menu = file->addMenu(tr("&Export"));
  QAction* export_png = export_menu->addAction(tr("View in front as PNG…"));
  QAction* export_svg = export_menu->addAction(tr("View in front as SVG…"));
  const auto front_view = [this]() -> QString {
    const QStringList shown = window_->viewsInFront();
    return shown.isEmpty() ? QStringLiteral("memory") : shown.front();
  };
  connect(export_png, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export PNG"), QString(), tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  connect(export_svg, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export SVG"), QString(), tr("SVG images (*.svg)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  QAction* export_csv = export_menu->addAction(tr("Ranked layouts as CSV…"));
  connect(export_csv, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportRankedCsv(path);
  });
  return export_menu;
}

void ExportController::addDataActions(QMenu* export_menu, QMenu* file) {
  QAction* export_json = export_menu->addAction(tr("Current estimate as JSON…"));
  connect(export_json, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(window_, tr("Export JSON"), QString(), tr("JSON (*.json)"));
    if (!path.isEmpty()) exportEstimateJson(path);
  });
  file->addSeparator();
  const std::pair<LauncherFormat, QString> launcher_exports[] = {
      {LauncherFormat::torchtitan, tr("Current layout as torchtitan TOML…")},
      {LauncherFormat::megatron, tr("Current layout as Megatron-LM arguments…")},
      {LauncherFormat::deepspeed, tr("Current layout as DeepSpeed JSON…")}};
  for (const auto& [format, title] : launcher_exports) {
    QAction* action = export_menu->addAction(title);
    connect(action, &QAction::triggered, this, [this, format = format] {
      const QString path =
          QFileDialog::getSaveFileName(window_, tr("Export launcher config"), QString(), launcher_file_filter(format));
      if (!path.isEmpty()) exportLauncherConfig(format, path);
    });
  }
  file->addSeparator();
}

}  // namespace meshscope::ui
