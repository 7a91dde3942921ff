// The main window's menus and the actions behind them: projects (new, open, save, recent),
// imports (profiler traces, node topologies), calibration and exports.
#include "ui/window/main_window.hpp"

#include <QAction>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QKeySequence>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QSvgGenerator>
#include <QUndoStack>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <utility>

#include "core/calibration/calibrate.hpp"
#include "core/calibration/trace_compare.hpp"
#include "core/catalogue.hpp"
#include "core/framework/framework.hpp"
#include "core/importers/launcher_config.hpp"
#include "core/importers/nccl_tests.hpp"
#include "core/importers/node_topology.hpp"
#include "core/importers/training_log.hpp"
#include "core/model_io.hpp"
#include "core/report/launcher_export.hpp"
#include "core/report/units.hpp"
#include "core/session/calibrate.hpp"
#include "core/session/export.hpp"
#include "core/session/sweep_results.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/explore/sweep_view.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/profile/profile_view.hpp"
#include "ui/window/app_settings.hpp"
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

constexpr int kMaxRecentFiles = 8;

}  // namespace

void MainWindow::create_menus() {
  create_file_menu();
  create_edit_menu();
  QMenu* view_menu = menuBar()->addMenu(tr("&View"));
  for (const auto& [name, dock] : docks_) view_menu->addAction(dock->toggleViewAction());
  add_presenter_action(view_menu);  // ui/window/main_window_lessons.cpp
}

// File: new, open, recent, save, the imports, the exports and quit.
void MainWindow::create_file_menu() {
  QMenu* file = menuBar()->addMenu(tr("&File"));
  QMenu* new_menu = file->addMenu(tr("&New"));
  QAction* new_default = new_menu->addAction(tr("Default project"));
  connect(new_default, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    if (auto project = default_project()) {
      path_.clear();
      setProject(*project);
    }
  });
  QMenu* samples = new_menu->addMenu(tr("From a sample cluster"));
  for (const SampleCluster& sample : sample_clusters()) {
    const QString file_name = QString::fromUtf8(sample.file.data(), static_cast<qsizetype>(sample.file.size()));
    QAction* action = samples->addAction(file_name);
    const std::string text(sample.text);
    connect(action, &QAction::triggered, this, [this, text, file_name] {
      if (!maybeSave()) return;
      auto doc = parse_json_text(text, file_name.toStdString());
      auto cluster =
          doc ? cluster_from_json(*doc, file_name.toStdString()) : Result<Cluster>(tl::unexpected(doc.error()));
      if (!cluster) return show_inline_error(QString::fromStdString(cluster.error().to_string()));
      Project edited = project();
      edited.cluster_inline = std::move(*cluster);
      edited.cluster.clear();
      edited.name = edited.model.name + " on " + edited.cluster_inline->name;
      path_.clear();
      setProject(edited);
    });
  }
  QAction* from_generator = new_menu->addAction(tr("From a generator…"));
  connect(from_generator, &QAction::triggered, this, [this] {
    bool ok = false;
    const QString spec = QInputDialog::getText(this, tr("New project from a generator"),
                                               tr("Generator string, e.g. dgx-h100:nodes=16 (docs/cluster-format.md)"),
                                               QLineEdit::Normal, QStringLiteral("dgx-h100:nodes=8"), &ok);
    if (!ok || spec.isEmpty() || !maybeSave()) return;
    auto cluster = resolve_cluster(spec.toStdString());
    if (!cluster) return show_inline_error(QString::fromStdString(cluster.error().to_string()));
    Project edited = project();
    edited.cluster = spec.toStdString();
    edited.cluster_inline.reset();
    edited.gpu_count = cluster->num_gpus();
    path_.clear();
    setProject(edited);
  });
  QAction* open = file->addAction(tr("&Open…"));
  open->setShortcut(QKeySequence::Open);
  connect(open, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path = QFileDialog::getOpenFileName(this, tr("Open project"), QString(),
                                                      tr("meshscope projects (*.json);;All files (*)"));
    if (!path.isEmpty()) openProject(path);
  });
  recent_menu_ = file->addMenu(tr("Open &Recent"));
  add_lessons_menu(file);  // ui/window/main_window_lessons.cpp
  rebuild_recent_menu();
  QAction* save = file->addAction(tr("&Save"));
  save->setShortcut(QKeySequence::Save);
  QAction* save_as = file->addAction(tr("Save &As…"));
  save_as->setShortcut(QKeySequence::SaveAs);
  const auto ask_save = [this] {
    const QString path =
        QFileDialog::getSaveFileName(this, tr("Save project"), path_, tr("meshscope projects (*.json)"));
    if (!path.isEmpty()) saveProject(path);
  };
  connect(save, &QAction::triggered, this, [this, ask_save] {
    if (path_.isEmpty())
      ask_save();
    else
      saveProject(path_);
  });
  connect(save_as, &QAction::triggered, this, ask_save);
  file->addSeparator();
  QAction* import_trace = file->addAction(tr("Import profiler &trace…"));
  connect(import_trace, &QAction::triggered, this, [this] {
    const QStringList paths =
        QFileDialog::getOpenFileNames(this, tr("PyTorch profiler traces (one per rank)"), QString(),
                                      tr("Kineto traces (*.json *.json.gz);;All files (*)"));
    if (paths.isEmpty()) return;
    importTraces(paths);
  });
  QAction* import_log = file->addAction(tr("Import training &log…"));
  import_log->setToolTip(
      tr("A Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan or NeMo log: measured step time, "
         "throughput and memory against the prediction"));
  connect(import_log, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Training log"), QString(),
                                                      tr("Logs (*.log *.txt *.out *.log.gz);;All files (*)"));
    if (!path.isEmpty()) importTrainingLog(path);
  });
  QAction* import_topology = file->addAction(tr("Import node &topology…"));
  import_topology->setToolTip(tr("nvidia-smi topo -m output, hwloc/lstopo XML or an NCCL topology XML"));
  connect(import_topology, &QAction::triggered, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Node topology (nvidia-smi topo -m, hwloc XML, NCCL topology XML)"),
                                     QString(), tr("Topology files (*.txt *.xml *.log);;All files (*)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int nodes = QInputDialog::getInt(this, tr("Replicate the node"), tr("Nodes on a rail-optimised fabric:"), 1,
                                           1, 4096, 1, &ok);
    if (!ok) return;
    QStringList gpus;
    for (const GpuSpec& gpu : gpu_catalogue()) gpus << QString::fromStdString(gpu.id);
    const QString gpu = QInputDialog::getItem(
        this, tr("GPU model"), tr("Catalogue GPU of every GPU in the file:"), gpus,
        std::max(0, static_cast<int>(gpus.indexOf(QString::fromStdString(project().gpu.id)))), false, &ok);
    if (ok) importNodeTopology(path, nodes, gpu);
  });
  QAction* open_sweep = file->addAction(tr("Open s&weep results…"));
  open_sweep->setToolTip(tr("The JSON lines of meshscope-cli sweep: throughput against GPU count, the Pareto front"));
  connect(open_sweep, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(this, tr("Sweep results"), QString(),
                                                      tr("JSON lines (*.jsonl *.json);;All files (*)"));
    if (!path.isEmpty()) openSweep(path);
  });
  QAction* import_launcher = file->addAction(tr("Import &launcher config…"));
  import_launcher->setToolTip(tr("A Megatron-LM launch script, a torchtitan TOML or a DeepSpeed JSON, as a project"));
  connect(import_launcher, &QAction::triggered, this, [this] {
    if (!maybeSave()) return;
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Launcher config (Megatron-LM script, torchtitan TOML, DeepSpeed JSON)"),
                                     QString(), tr("Launcher configs (*.sh *.toml *.json *.txt);;All files (*)"));
    if (path.isEmpty()) return;
    bool ok = false;
    const int gpus = QInputDialog::getInt(this, tr("GPUs"),
                                          tr("GPUs in all, where the file leaves it open (0: the file's or the "
                                             "current project's):"),
                                          0, 0, 1 << 30, 8, &ok);
    if (ok) importLauncherConfig(path, gpus);
  });
  create_export_menu(file);
  QAction* quit = file->addAction(tr("&Quit"));
  quit->setShortcut(QKeySequence::Quit);
  connect(quit, &QAction::triggered, this, &QMainWindow::close);
}

// File → Export: the view in front, the ranked table, the estimate, launcher configs.
void MainWindow::create_export_menu(QMenu* file) {
  QMenu* export_menu = file->addMenu(tr("&Export"));
  QAction* export_png = export_menu->addAction(tr("View in front as PNG…"));
  QAction* export_svg = export_menu->addAction(tr("View in front as SVG…"));
  const auto front_view = [this]() -> QString {
    for (const auto& [name, dock] : docks_)
      if (!dock->visibleRegion().isEmpty() && name != QStringLiteral("workload")) return name;
    return QStringLiteral("memory");
  };
  connect(export_png, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export PNG"), QString(), tr("PNG images (*.png)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  connect(export_svg, &QAction::triggered, this, [this, front_view] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export SVG"), QString(), tr("SVG images (*.svg)"));
    if (!path.isEmpty()) exportViewImage(front_view(), path);
  });
  QAction* export_csv = export_menu->addAction(tr("Ranked layouts as CSV…"));
  connect(export_csv, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export CSV"), QString(), tr("CSV (*.csv)"));
    if (!path.isEmpty()) exportRankedCsv(path);
  });
  add_lesson_exports(export_menu);  // ui/window/main_window_lessons.cpp
  QAction* export_json = export_menu->addAction(tr("Current estimate as JSON…"));
  connect(export_json, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Export JSON"), QString(), tr("JSON (*.json)"));
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
          QFileDialog::getSaveFileName(this, tr("Export launcher config"), QString(), launcher_file_filter(format));
      if (!path.isEmpty()) exportLauncherConfig(format, path);
    });
  }
  file->addSeparator();
}

// Edit: undo and redo (one history), autosave, the calibrations.
void MainWindow::create_edit_menu() {
  QMenu* edit_menu = menuBar()->addMenu(tr("&Edit"));
  // One history: the topology editor's toolbar undoes and redoes the same steps.
  QAction* undo = document_->undoStack()->createUndoAction(this, tr("&Undo"));
  undo->setShortcut(QKeySequence::Undo);
  QAction* redo = document_->undoStack()->createRedoAction(this, tr("&Redo"));
  redo->setShortcut(QKeySequence::Redo);
  edit_menu->addAction(undo);
  edit_menu->addAction(redo);
  edit_menu->addSeparator();
  QAction* autosave = edit_menu->addAction(tr("&Autosave interval…"));
  connect(autosave, &QAction::triggered, this, [this] {
    bool ok = false;
    const int seconds =
        QInputDialog::getInt(this, tr("Autosave"), tr("Write unsaved changes to the recovery file every (seconds):"),
                             autosaveInterval(), 1, 3600, 10, &ok);
    if (!ok) return;
    AppSettings().set_autosave_interval_s(seconds);
    setAutosaveInterval(seconds);
  });
  edit_menu->addSeparator();
  QAction* calibrate_gemm = edit_menu->addAction(tr("Calibrate GEMM efficiency from the imported &trace"));
  connect(calibrate_gemm, &QAction::triggered, this, [this] {
    const QString summary = calibrateGemmFromTrace();
    if (!summary.isEmpty()) QMessageBox::information(this, tr("Calibration applied"), summary);
  });
  QAction* calibrate_log = edit_menu->addAction(tr("Calibrate GEMM efficiency from the imported training &log"));
  connect(calibrate_log, &QAction::triggered, this, [this] {
    const QString summary = calibrateGemmFromLog();
    if (!summary.isEmpty()) QMessageBox::information(this, tr("Calibration applied"), summary);
  });
  QAction* calibrate = edit_menu->addAction(tr("&Calibrate from nccl-tests logs…"));
  connect(calibrate, &QAction::triggered, this, [this] {
    const QStringList logs = QFileDialog::getOpenFileNames(this, tr("nccl-tests logs (run on this cluster's GPUs)"),
                                                           QString(), tr("Logs (*.log *.txt);;All files (*)"));
    if (logs.isEmpty()) return;
    const QString summary = calibrateFromNcclTests(logs);
    if (!summary.isEmpty()) showNcclComparison(summary);
  });
}

void MainWindow::rebuild_recent_menu() {
  recent_menu_->clear();
  const QStringList recent = AppSettings().recent_files();
  for (const QString& path : recent) {
    QAction* action = recent_menu_->addAction(QFileInfo(path).fileName());
    action->setToolTip(path);
    connect(action, &QAction::triggered, this, [this, path] {
      if (maybeSave()) openProject(path);
    });
  }
  recent_menu_->setEnabled(!recent.isEmpty());
}

bool MainWindow::openProject(const QString& path) {
  const std::string file = QFile::encodeName(path).toStdString();
  Result<Project> project = [&]() -> Result<Project> {
    MS_TRY(text, read_text_file(file));
    MS_TRY(doc, parse_json_text(text, file));
    return project_from_json(doc, file);
  }();
  if (!project) {
    show_inline_error(tr("Could not open %1 — the current project is unchanged.\n%2")
                          .arg(path, QString::fromStdString(project.error().to_string())));
    return false;
  }
  show_inline_error({});
  path_ = path;
  setProject(*project);
  AppSettings settings;
  QStringList recent = settings.recent_files();
  recent.removeAll(path);
  recent.prepend(path);
  while (recent.size() > kMaxRecentFiles) recent.removeLast();
  settings.set_recent_files(recent);
  rebuild_recent_menu();
  return true;
}

bool MainWindow::saveProject(const QString& path) {
  document_->setViewState(viewState());
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(project_to_json(project()).dump(2) + "\n"), error)) {
    show_inline_error(tr("Not saved — %1. The file on disk is unchanged.").arg(error));
    return false;
  }
  show_inline_error({});
  path_ = path;
  mark_saved();
  status_->setText(tr("Saved %1").arg(path));
  return true;
}

bool MainWindow::importNodeTopology(const QString& path, int nodes, const QString& gpu) {
  NodeImportOptions options;
  options.nodes = nodes;
  options.gpu_model = gpu.toStdString();
  auto imported = import_node_topology_file(QFile::encodeName(path).toStdString(), options);
  if (!imported) {
    show_inline_error(tr("Could not import %1 — the current project is unchanged.\n%2")
                          .arg(path, QString::fromStdString(imported.error().to_string())));
    return false;
  }
  show_inline_error({});
  ClusterPart::Value cluster;
  cluster.gpu_count = imported->cluster.num_gpus();
  cluster.cluster_inline = std::move(imported->cluster);
  cluster.gpu = project().gpu;
  if (auto found = find_gpu(options.gpu_model)) cluster.gpu = *found;
  QStringList warnings;
  for (const ImportWarning& warning : imported->warnings)
    warnings << QString::fromStdString(warning.location + ": " + warning.message);
  status_->setText(warnings.isEmpty() ? tr("Imported %1").arg(path)
                                      : tr("Imported %1 — %2").arg(path, warnings.join(QStringLiteral("; "))));
  document_->push(new ReplaceCluster(document_, std::move(cluster), tr("Import %1").arg(QFileInfo(path).fileName())));
  showView(QStringLiteral("topology"));
  return true;
}

bool MainWindow::importLauncherConfig(const QString& path, int64_t gpus) {
  LauncherImportOptions options;
  options.base = project();
  if (gpus > 0) options.gpus = gpus;
  auto imported = load_launcher_config(QFile::encodeName(path).toStdString(), options);
  if (!imported) {
    show_inline_error(tr("Could not import %1 — the current project is unchanged.\n%2")
                          .arg(path, QString::fromStdString(imported.error().to_string())));
    return false;
  }
  show_inline_error({});
  path_.clear();  // a new project, not yet saved
  setProject(imported->project);
  QString summary = tr("Imported %1 (%2): %3 flags ignored, %4 not modelled")
                        .arg(QFileInfo(path).fileName(), QString::fromUtf8(launcher_format_name(imported->format)))
                        .arg(imported->ignored.size())
                        .arg(imported->unmodelled.size());
  QStringList details;
  for (const auto& item : imported->unmodelled) details << QString::fromStdString(item);
  for (const auto& item : imported->warnings) details << QString::fromStdString(item);
  if (!details.isEmpty()) summary += QStringLiteral(" — ") + details.join(QStringLiteral("; "));
  status_->setText(summary);
  return true;
}

void MainWindow::exportRankedLayout(const RankedLayout& layout) {
  Framework framework = project().training.framework;
  if (framework == Framework::any) {
    const std::vector<Framework> running = frameworks_in(layout.frameworks);
    if (!running.empty()) framework = running.front();
  }
  const auto format = launcher_format_of(framework);
  if (!format) {
    show_inline_error(
        tr("Not exported \u2014 no framework meshscope knows runs this layout (its schedule or options)."));
    return;
  }
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export for %1").arg(QString::fromUtf8(enum_name(framework).data())),
                                   QString(), launcher_file_filter(*format));
  if (path.isEmpty()) return;
  Project ranked = project_with_ranked_layout(project(), layout);
  ranked.training.framework = framework;
  writeLauncherConfig(ranked, *format, path);
}

bool MainWindow::exportLauncherConfig(LauncherFormat format, const QString& path) {
  return writeLauncherConfig(project(), format, path);
}

bool MainWindow::writeLauncherConfig(const Project& source, LauncherFormat format, const QString& path) {
  auto exported = export_launcher_config(source, format);
  if (!exported) {
    show_inline_error(QString::fromStdString(exported.error().to_string()));
    return false;
  }
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(exported->text), error)) {
    show_inline_error(tr("Not exported — %1.").arg(error));
    return false;
  }
  show_inline_error({});
  QStringList fill;
  for (const auto& item : exported->placeholders) fill << QString::fromStdString(item.substr(0, item.find(':')));
  status_->setText(tr("Exported %1; fill in %2").arg(path, fill.join(QStringLiteral(", "))));
  return true;
}

QString MainWindow::calibrateGemmFromTrace() {
  const auto& comparison = profile_->comparison();
  const TraceCompareRow* compute = comparison ? comparison->row("compute") : nullptr;
  if (compute == nullptr || !(compute->measured > 0) || !evaluation_ || !evaluation_->cluster ||
      project().mode != Mode::training) {
    show_inline_error(tr("Import a profiler trace of this training layout first (File → Import profiler trace)."));
    return {};
  }
  // The fit is core's (core/session/calibrate.hpp); the window applies it as one undoable command.
  auto calibration = calibrate_gemm_efficiency(project(), *evaluation_->cluster, *comparison);
  if (!calibration) {
    show_inline_error(QString::fromStdString(calibration.error().to_string()));
    return {};
  }
  show_inline_error({});
  const GemmEfficiencyHint& hint = calibration->hint;
  QString summary = tr("GEMM efficiency %1 → %2: predicted compute %3 % → %4 % from the measured %5.")
                        .arg(hint.before, 0, 'f', 3)
                        .arg(hint.after, 0, 'f', 3)
                        .arg(percent(hint.compute_error_before), 0, 'f', 1)
                        .arg(percent(hint.compute_error_after), 0, 'f', 1)
                        .arg(duration_text(calibration->measured_compute_s));
  if (hint.at_limit)
    summary +=
        tr(" The fit hit its limit: GEMMs alone cannot explain the difference (is this the layout the trace ran?).");
  document_->push(new ApplyCalibration(document_, project().comm_keys, std::move(calibration->efficiency_keys),
                                       tr("Calibrate the GEMM efficiency from the trace")));
  status_->setText(summary);
  return summary;
}

bool MainWindow::openSweep(const QString& path) {
  auto results = load_sweep_results(QFile::encodeName(path).toStdString());
  if (!results) {
    show_inline_error(
        tr("Could not open the sweep — nothing changed.\n%1").arg(QString::fromStdString(results.error().to_string())));
    return false;
  }
  show_inline_error({});
  if (sweep_ == nullptr) {
    sweep_ = new SweepView(this);
    sweep_->setWindowFlag(Qt::Window);
    sweep_->setObjectName(QStringLiteral("sweep_view"));
    connect(sweep_, &SweepView::openPoint, this, [this](const SweepResultPoint& point) {
      auto opened = project_from_sweep_point(project(), point);
      if (!opened) return show_inline_error(QString::fromStdString(opened.error().to_string()));
      show_inline_error({});
      document_->push(new OpenSweepPoint(
          document_, std::move(*opened),
          tr("Open sweep point #%1 (%2 on %3)").arg(point.index).arg(qstring(point.model), qstring(point.cluster))));
    });
  }
  sweep_->setWindowTitle(tr("Sweep — %1").arg(QFileInfo(path).fileName()));
  sweep_->setResults(std::make_shared<const SweepResults>(std::move(*results)), QFileInfo(path).fileName());
  sweep_->resize(sweep_->sizeHint());
  sweep_->show();
  sweep_->raise();
  return true;
}

bool MainWindow::importTrainingLog(const QString& path) {
  auto log = load_training_log(QFile::encodeName(path).toStdString());
  if (!log) {
    show_inline_error(tr("Could not read the training log — nothing changed.\n%1")
                          .arg(QString::fromStdString(log.error().to_string())));
    return false;
  }
  show_inline_error({});
  profile_->setTrainingLog(std::make_shared<const MeasuredRun>(std::move(*log)));
  showView(QStringLiteral("profile"));
  status_->setText(tr("Imported %1").arg(QFileInfo(path).fileName()));
  return true;
}

QString MainWindow::calibrateGemmFromLog() {
  const auto& log = profile_->trainingLog();
  if (!log || !evaluation_ || !evaluation_->cluster || project().mode != Mode::training) {
    show_inline_error(tr("Import a training log of this training layout first (File → Import training log)."));
    return {};
  }
  auto calibration = calibrate_gemm_from_log(project(), *evaluation_->cluster, *log);
  if (!calibration) {
    show_inline_error(QString::fromStdString(calibration.error().to_string()));
    return {};
  }
  show_inline_error({});
  const LogGemmHint& hint = calibration->hint;
  QString summary = tr("GEMM efficiency %1 → %2: predicted step time %3 % → %4 % from the logged %5.")
                        .arg(hint.before, 0, 'f', 3)
                        .arg(hint.after, 0, 'f', 3)
                        .arg(percent(hint.step_error_before), 0, 'f', 1)
                        .arg(percent(hint.step_error_after), 0, 'f', 1)
                        .arg(duration_text(calibration->measured_step_s));
  if (hint.at_limit)
    summary +=
        tr(" The fit hit its limit: GEMMs alone cannot explain the difference (is this the layout the log "
           "ran?).");
  document_->push(new ApplyCalibration(document_, project().comm_keys, std::move(calibration->efficiency_keys),
                                       tr("Calibrate the GEMM efficiency from the training log")));
  status_->setText(summary);
  return summary;
}

void MainWindow::showNcclComparison(const QString& summary) {
  show_nccl_comparison(this, summary, nccl_comparison_);
}

QString MainWindow::calibrateFromNcclTests(const QStringList& logs) {
  if (!evaluation_ || !evaluation_->cluster) {
    show_inline_error(tr("Calibration needs a cluster that resolves."));
    return {};
  }
  // As meshscope-cli calibrate without --gpus (core/session/calibrate.hpp): each log on the cluster's first
  // `ranks` GPUs, the rows of at least 64 MiB, from the project's --comm keys.
  std::vector<std::string> paths;
  for (const QString& path : logs) paths.push_back(QFile::encodeName(path).toStdString());
  auto calibration = calibrate_project_from_nccl_tests(project(), *evaluation_->cluster, paths);
  if (!calibration) {
    show_inline_error(tr("Could not calibrate — the project is unchanged.\n%1")
                          .arg(QString::fromStdString(calibration.error().to_string())));
    return {};
  }
  show_inline_error({});
  nccl_comparison_.clear();
  for (const NcclCalibrationRow& row : calibration->rows)
    nccl_comparison_.push_back({QString::fromStdString(row.collective), row.bytes, row.measured_time_s,
                                row.before_time_s, row.after_time_s, row.measured_busbw, row.after_busbw});
  const CalibrationResult& fit = calibration->fit;
  QStringList changes;
  for (const std::string& change : fit.changes) changes << QString::fromStdString(change);
  const QString summary = tr("Mean |time error| over %1 rows of at least 64 MiB: %2 % before, %3 % after.\n%4")
                              .arg(fit.rows)
                              .arg(percent(fit.error_before), 0, 'f', 1)
                              .arg(percent(fit.error_after), 0, 'f', 1)
                              .arg(changes.join(QLatin1Char('\n')));
  document_->push(new ApplyCalibration(document_, std::move(calibration->comm_keys), project().efficiency_keys,
                                       tr("Calibrate from nccl-tests logs")));
  status_->setText(summary.section(QLatin1Char('\n'), 0, 0));
  return summary;
}

void MainWindow::importTraces(const QStringList& paths) {
  // A folder stands for the traces of its ranks (one .json or .json.gz per rank), as in the CLI.
  QStringList files;
  for (const QString& path : paths) {
    const QFileInfo info(path);
    if (!info.isDir()) {
      files << path;
      continue;
    }
    const QDir dir(path);
    for (const QString& name :
         dir.entryList({QStringLiteral("*.json"), QStringLiteral("*.json.gz")}, QDir::Files, QDir::Name))
      files << dir.filePath(name);
    if (files.isEmpty()) return show_inline_error(tr("%1: no .json or .json.gz traces in this folder").arg(path));
  }
  showView(QStringLiteral("profile"));
  profile_->startImport(files);
}

bool MainWindow::importing() const {
  return profile_->isImporting();
}

bool MainWindow::exportViewImage(const QString& name, const QString& path) {
  QWidget* widget = view(name);
  if (widget == nullptr) {
    show_inline_error(tr("No view named %1").arg(name));
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
      show_inline_error(tr("cannot write %1").arg(path));
      return false;
    }
    widget->render(&painter);
    painter.end();
    return QFileInfo(path).size() > 0;
  }
  if (!widget->grab().save(path)) {
    show_inline_error(tr("cannot write %1").arg(path));
    return false;
  }
  return true;
}

bool MainWindow::exportRankedCsv(const QString& path) {
  if (!search_ || (!search_->training && !search_->serving)) {
    show_inline_error(tr("No ranked layouts yet: the search has not finished."));
    return false;
  }
  // The tables as core writes them (core/session/export.hpp).
  const std::string text =
      search_->training ? ranked_training_csv(*search_->training) : ranked_serving_csv(*search_->serving);
  const QByteArray csv = QByteArray::fromStdString(text);
  QString error;
  if (!write_file_atomically(path, csv, error)) {
    show_inline_error(error);
    return false;
  }
  return true;
}

bool MainWindow::exportEstimateJson(const QString& path) {
  if (!evaluation_ || (!evaluation_->estimate && !evaluation_->budget)) {
    show_inline_error(tr("Nothing to export: the layout is not valid."));
    return false;
  }
  // The document as core writes it (core/session/export.hpp).
  const nlohmann::json doc = estimate_export_json(*evaluation_);
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(doc.dump(2) + "\n"), error)) {
    show_inline_error(error);
    return false;
  }
  return true;
}

}  // namespace meshscope::ui
