#pragma once
// File → Export: a view as PNG or SVG, the ranked table as CSV, the current estimate as JSON, and the
// current or a ranked layout as the launcher config of its framework.
#include <QString>

#include "core/importers/launcher_config.hpp"
#include "core/project/project.hpp"
#include "core/search/search.hpp"
#include "ui/window/window_controller.hpp"

class QMenu;

namespace meshscope::ui {

class Evaluator;
class MainWindow;
class ProjectDocument;

class ExportController final : public WindowController {
  Q_OBJECT

 public:
  ExportController(MainWindow* window, ProjectDocument* document, Evaluator* evaluator);

  // The named view as PNG or SVG, the ranked table as CSV, the current estimate as JSON. False with an
  // inline error when the file cannot be written.
  bool exportViewImage(const QString& name, const QString& path);
  bool exportRankedCsv(const QString& path);
  bool exportEstimateJson(const QString& path);
  // Writes the current layout as a launcher config, with what the user must still supply as
  // <PLACEHOLDERS> (named in the status line). False with an inline error when it cannot.
  bool exportLauncherConfig(LauncherFormat format, const QString& path);
  // A ranked layout as the launcher config of the framework it runs in (the project's target
  // framework, or under `any` the first framework that runs it); asks for the file.
  void exportRankedLayout(const RankedLayout& layout);

  // File → Export ▸: the view in front as PNG / SVG and the ranked table as CSV (then the window adds the
  // lesson exports), and the estimate as JSON and the launcher configs.
  QMenu* addMenu(QMenu* file);
  void addDataActions(QMenu* export_menu, QMenu* file);

 private:
  // export_launcher_config of `source`, written atomically to `path`; the placeholders to fill in the
  // status bar, or the error inline.
  bool writeLauncherConfig(const Project& source, LauncherFormat format, const QString& path);

  MainWindow* window_;
  ProjectDocument* document_;
  Evaluator* evaluator_;
};

}  // namespace meshscope::ui
