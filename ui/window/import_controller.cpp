#include "ui/window/import_controller.hpp"

#include <QAction>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QInputDialog>
#include <QMenu>

#include <algorithm>
#include <memory>
#include <utility>

#include "core/importers/node_topology.hpp"
#include "core/importers/training_log.hpp"
#include "core/model/catalogue.hpp"
#include "core/session/import_launcher.hpp"
#include "core/session/sweep_results.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/explore/sweep_view.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/profile/profile_view.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/main_window.hpp"

namespace meshscope::ui {

ImportController::ImportController(MainWindow* window, ProjectDocument* document, FileSession* session,
                                   ProfileView* profile)
    : WindowController(window), window_(window), document_(document), session_(session), profile_(profile) {}

void ImportController::importTraces(const QStringList& paths) {
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
    if (files.isEmpty()) return emit inlineError(tr("%1: no .json or .json.gz traces in this folder").arg(path));
  }
  window_->showView(QStringLiteral("profile"));
  profile_->startImport(files);
}

bool ImportController::importing() const {
  return profile_->isImporting();
}

bool ImportController::importTrainingLog(const QString& path) {
  auto log = load_training_log(QFile::encodeName(path).toStdString());
  if (!log) {
    emit inlineError(tr("Could not read the training log — nothing changed.\n%1")
                         .arg(QString::fromStdString(log.error().to_string())));
    return false;
  }
  emit inlineError({});
  profile_->setTrainingLog(std::make_shared<const MeasuredRun>(std::move(*log)));
  window_->showView(QStringLiteral("profile"));
  emit status(tr("Imported %1").arg(QFileInfo(path).fileName()));
  return true;
}

bool ImportController::importNodeTopology(const QString& path, int nodes, const QString& gpu) {
  NodeImportOptions options;
  options.nodes = nodes;
  options.gpu_model = gpu.toStdString();
  auto imported = import_node_topology_file(QFile::encodeName(path).toStdString(), options);
  if (!imported) {
    emit inlineError(tr("Could not import %1 — the current project is unchanged.\n%2")
                         .arg(path, QString::fromStdString(imported.error().to_string())));
    return false;
  }
  emit inlineError({});
  ClusterPart::Value cluster;
  cluster.gpu_count = imported->cluster.num_gpus();
  cluster.cluster_inline = std::move(imported->cluster);
  cluster.gpu = document_->project().gpu;
  if (auto found = find_gpu(options.gpu_model)) cluster.gpu = *found;
  QStringList warnings;
  for (const ImportWarning& warning : imported->warnings)
    warnings << QString::fromStdString(warning.location + ": " + warning.message);
  emit status(warnings.isEmpty() ? tr("Imported %1").arg(path)
                                 : tr("Imported %1 — %2").arg(path, warnings.join(QStringLiteral("; "))));
  document_->push(new ReplaceCluster(document_, std::move(cluster), tr("Import %1").arg(QFileInfo(path).fileName())));
  window_->showView(QStringLiteral("topology"));
  return true;
}

bool ImportController::importLauncherConfig(const QString& path, int64_t gpus) {
  LauncherImportOptions options;
  options.base = document_->project();
  if (gpus > 0) options.gpus = gpus;
  auto imported = load_launcher_config(QFile::encodeName(path).toStdString(), options);
  if (!imported) {
    emit inlineError(tr("Could not import %1 — the current project is unchanged.\n%2")
                         .arg(path, QString::fromStdString(imported.error().to_string())));
    return false;
  }
  emit inlineError({});
  session_->setProject(imported->project);  // a new project, not yet saved
  QString summary = tr("Imported %1 (%2): %3 flags ignored, %4 not modelled")
                        .arg(QFileInfo(path).fileName(), QString::fromUtf8(launcher_format_name(imported->format)))
                        .arg(imported->ignored.size())
                        .arg(imported->unmodelled.size());
  QStringList details;
  for (const auto& item : imported->unmodelled) details << QString::fromStdString(item);
  for (const auto& item : imported->warnings) details << QString::fromStdString(item);
  if (!details.isEmpty()) summary += QStringLiteral(" — ") + details.join(QStringLiteral("; "));
  emit status(summary);
  return true;
}

bool ImportController::openSweep(const QString& path) {
  auto results = load_sweep_results(QFile::encodeName(path).toStdString());
  if (!results) {
    emit inlineError(
        tr("Could not open the sweep — nothing changed.\n%1").arg(QString::fromStdString(results.error().to_string())));
    return false;
  }
  emit inlineError({});
  if (sweep_ == nullptr) createSweepView();
  sweep_->setWindowTitle(tr("Sweep — %1").arg(QFileInfo(path).fileName()));
  sweep_->setResults(std::make_shared<const SweepResults>(std::move(*results)), QFileInfo(path).fileName());
  sweep_->resize(sweep_->sizeHint());
  sweep_->show();
  sweep_->raise();
  return true;
}

void ImportController::createSweepView() {
  sweep_ = new SweepView(window_);
  sweep_->setWindowFlag(Qt::Window);
  sweep_->setObjectName(QStringLiteral("sweep_view"));
  connect(sweep_, &SweepView::openPoint, this, [this](const SweepResultPoint& point) {
    auto opened = project_from_sweep_point(document_->project(), point);
    if (!opened) return emit inlineError(QString::fromStdString(opened.error().to_string()));
    emit inlineError({});
    document_->push(new OpenSweepPoint(
        document_, std::move(*opened),
        tr("Open sweep point #%1 (%2 on %3)").arg(point.index).arg(qstring(point.model), qstring(point.cluster))));
  });
}

// ---- The menu -----------------------------------------------------------------------------------------------------

void ImportController::addActions(QMenu* file) {
  QAction* import_trace = file->addAction(tr("Import profiler &trace…"));
  connect(import_trace, &QAction::triggered, this, [this] {
    const QStringList paths =
        QFileDialog::getOpenFileNames(window_, tr("PyTorch profiler traces (one per rank)"), QString(),
                                      tr("Kineto traces (*.json *.json.gz);;All files (*)"));
    if (paths.isEmpty()) return;
    importTraces(paths);
  });
  QAction* import_log = file->addAction(tr("Import training &log…"));
  import_log->setToolTip(
      tr("A Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan or NeMo log: measured step time, "
         "throughput and memory against the prediction"));
  connect(import_log, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Training log"), QString(),
                                                      tr("Logs (*.log *.txt *.out *.log.gz);;All files (*)"));
    if (!path.isEmpty()) importTrainingLog(path);
  });
  QAction* import_topology = file->addAction(tr("Import node &topology…"));
  import_topology->setToolTip(tr("nvidia-smi topo -m output, hwloc/lstopo XML or an NCCL topology XML"));
  connect(import_topology, &QAction::triggered, this, &ImportController::askNodeTopology);
  QAction* open_sweep = file->addAction(tr("Open s&weep results…"));
  open_sweep->setToolTip(tr("The JSON lines of meshscope-cli sweep: throughput against GPU count, the Pareto front"));
  connect(open_sweep, &QAction::triggered, this, [this] {
    const QString path = QFileDialog::getOpenFileName(window_, tr("Sweep results"), QString(),
                                                      tr("JSON lines (*.jsonl *.json);;All files (*)"));
    if (!path.isEmpty()) openSweep(path);
  });
  QAction* import_launcher = file->addAction(tr("Import &launcher config…"));
  import_launcher->setToolTip(tr("A Megatron-LM launch script, a torchtitan TOML or a DeepSpeed JSON, as a project"));
  connect(import_launcher, &QAction::triggered, this, &ImportController::askLauncherConfig);
}

void ImportController::askNodeTopology() {
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Node topology (nvidia-smi topo -m, hwloc XML, NCCL topology XML)"),
                                   QString(), tr("Topology files (*.txt *.xml *.log);;All files (*)"));
  if (path.isEmpty()) return;
  bool ok = false;
  const int nodes = QInputDialog::getInt(window_, tr("Replicate the node"), tr("Nodes on a rail-optimised fabric:"), 1,
                                         1, 4096, 1, &ok);
  if (!ok) return;
  QStringList gpus;
  for (const GpuSpec& gpu : gpu_catalogue()) gpus << QString::fromStdString(gpu.id);
  const QString gpu = QInputDialog::getItem(
      window_, tr("GPU model"), tr("Catalogue GPU of every GPU in the file:"), gpus,
      std::max(0, static_cast<int>(gpus.indexOf(QString::fromStdString(document_->project().gpu.id)))), false, &ok);
  if (ok) importNodeTopology(path, nodes, gpu);
}

void ImportController::askLauncherConfig() {
  if (!session_->maybeSave()) return;
  const QString path =
      QFileDialog::getOpenFileName(window_, tr("Launcher config (Megatron-LM script, torchtitan TOML, DeepSpeed JSON)"),
                                   QString(), tr("Launcher configs (*.sh *.toml *.json *.txt);;All files (*)"));
  if (path.isEmpty()) return;
  bool ok = false;
  const int gpus = QInputDialog::getInt(window_, tr("GPUs"),
                                        tr("GPUs in all, where the file leaves it open (0: the file's or the "
                                           "current project's):"),
                                        0, 0, 1 << 30, 8, &ok);
  if (ok) importLauncherConfig(path, gpus);
}

}  // namespace meshscope::ui
