#pragma once
// File → Import: profiler traces and training logs into the profile view, a node topology as the
// project's cluster, a launcher config as the project, and a sweep's results into the sweep window.
#include <QString>
#include <QStringList>

#include <cstdint>

#include "ui/window/window_controller.hpp"

class QMenu;

namespace meshscope::ui {

class FileSession;
class MainWindow;
class ProfileView;
class ProjectDocument;
class SweepView;

class ImportController final : public WindowController {
  Q_OBJECT

 public:
  ImportController(MainWindow* window, ProjectDocument* document, FileSession* session, ProfileView* profile);

  // Imports profiler traces into the profile view (in the background); a folder stands for the
  // traces of its ranks (one .json or .json.gz per rank), as in the CLI.
  void importTraces(const QStringList& paths);
  [[nodiscard]] bool importing() const;
  // Reads a training log (Megatron-LM, Megatron-DeepSpeed, DeepSpeed, torchtitan) into the profile view, where it is
  // compared with the prediction; false (the message inline) when it does not parse.
  bool importTrainingLog(const QString& path);
  // Imports a node topology (`nvidia-smi topo -m`, hwloc XML, NCCL topology XML), copies it onto
  // `nodes` nodes of a rail-optimised fabric and makes it the project's (editable) cluster; its
  // GPUs are given the catalogue model `gpu`. On error the message is shown inline, nothing changes.
  bool importNodeTopology(const QString& path, int nodes, const QString& gpu);
  // Imports a launcher config (a Megatron-LM launch script, a torchtitan TOML, a DeepSpeed JSON;
  // core/session/import_launcher.hpp) as the project, as File → Open does; what the file does not
  // say (the GPU model, the cluster family, a DeepSpeed config's model) is the current project's.
  // `gpus` > 0 sets the GPU count where the file leaves it open. The ignored and unmodelled flags are
  // shown in the status line. On error the message is shown inline and nothing changes.
  bool importLauncherConfig(const QString& path, int64_t gpus = 0);
  // Opens a sweep's JSON lines (meshscope-cli sweep) in the sweep window; double-clicking one of its points opens it
  // as the project (one undoable step). false (the message inline) when the file does not parse.
  bool openSweep(const QString& path);
  [[nodiscard]] SweepView* sweepView() const { return sweep_; }

  // File: the imports, after Save As.
  void addActions(QMenu* file);

 private:
  void askNodeTopology();
  void askLauncherConfig();
  void createSweepView();

  MainWindow* window_;
  ProjectDocument* document_;
  FileSession* session_;
  ProfileView* profile_;
  SweepView* sweep_ = nullptr;  // its own window, made on the first sweep opened
};

}  // namespace meshscope::ui
