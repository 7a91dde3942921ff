// The project document (ui/document/): one undo history of small named commands, each of which
// restores the project exactly when undone; repeated edits of one key merge into one step.
#include <catch2/catch.hpp>

#include <QSignalSpy>
#include <QUndoStack>

#include <functional>
#include <string>
#include <vector>

#include "core/project/project.hpp"
#include "core/topology/generators.hpp"
#include "qt_catch.hpp"
#include "ui/document/project_commands.hpp"
#include "ui/document/project_document.hpp"
#include "ui/topology/topology_document.hpp"

using namespace meshscope;
using ui::ProjectDocument;

namespace {

Project default_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

// Projects compare as their saved text (Project has no operator== yet).
std::string text_of(const Project& project) {
  return project_to_json(project).dump();
}

struct Case {
  const char* name;
  std::function<QUndoCommand*(ProjectDocument*)> make;
  const char* text;  // what the step is called contains this
};

}  // namespace

TEST_CASE("project document: every command names its step, undo restores the project exactly, redo re-applies") {
  const std::vector<Case> cases = {
      {"SetLayout",
       [](ProjectDocument* d) {
         Layout layout = d->project().layout;
         layout.micro_batch += 1;
         return new ui::SetLayout(d, layout, QStringLiteral("micro_batch"), QString::number(layout.micro_batch));
       },
       "micro_batch"},
      {"SetTrainingKey",
       [](ProjectDocument* d) {
         TrainingWorkload training = d->project().training;
         training.zero_stage = training.zero_stage == 3 ? 1 : 3;
         return new ui::SetTrainingKey(d, training, QStringLiteral("zero"), QString::number(training.zero_stage));
       },
       "zero"},
      {"SetSchedule", [](ProjectDocument* d) { return new ui::SetSchedule(d, PipelineSchedule::zb_h1); }, "schedule"},
      {"SetAxisOrder", [](ProjectDocument* d) { return new ui::SetAxisOrder(d, AxisOrder::tp_pp_dp); }, "rank order"},
      {"SetMode", [](ProjectDocument* d) { return new ui::SetMode(d, Mode::serving); }, "serving"},
      {"SetCompareSchedule", [](ProjectDocument* d) { return new ui::SetCompareSchedule(d, QStringLiteral("gpipe")); },
       "gpipe"},
      {"SetServingTarget", [](ProjectDocument* d) { return new ui::SetServingTarget(d, 500, 20); }, "serving target"},
      {"ApplyCalibration",
       [](ProjectDocument* d) {
         return new ui::ApplyCalibration(d, {{"nvlink_efficiency", "0.8"}}, {{"gemm", "0.7"}},
                                         QStringLiteral("Calibrate from nccl-tests logs"));
       },
       "Calibrate"},
      {"ReplaceCluster",
       [](ProjectDocument* d) {
         ui::ClusterPart::Value cluster = ui::ClusterPart::get(d->project());
         cluster.cluster = "dgx-h100:nodes=2";
         cluster.gpu_count = 16;
         return new ui::ReplaceCluster(d, cluster, QStringLiteral("Use the cluster dgx-h100:nodes=2"));
       },
       "cluster"},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    ProjectDocument document(default_or_fail());
    const std::string before = text_of(document.project());
    document.push(c.make(&document));
    const std::string after = text_of(document.project());
    CHECK(after != before);
    QUndoStack* undo = document.undoStack();
    CHECK(undo->count() == 1);
    CHECK(undo->undoText().contains(QString::fromLatin1(c.text)));
    CHECK_FALSE(undo->undoText().compare(QStringLiteral("edit"), Qt::CaseInsensitive) == 0);
    undo->undo();
    CHECK(text_of(document.project()) == before);
    undo->redo();
    CHECK(text_of(document.project()) == after);
  }
}

TEST_CASE("project document: repeated edits of one key merge into one step; another key or a save does not") {
  ProjectDocument document(default_or_fail());
  const int64_t micro_batch = document.project().layout.micro_batch;
  const auto set = [&](const char* key, int64_t Layout::*field, int64_t value) {
    Layout layout = document.project().layout;
    layout.*field = value;
    document.push(new ui::SetLayout(&document, layout, QString::fromLatin1(key), QString::number(value)));
  };
  QUndoStack* undo = document.undoStack();
  for (int64_t step = 1; step <= 4; ++step) set("micro_batch", &Layout::micro_batch, micro_batch + step);
  CHECK(undo->count() == 1);
  CHECK(undo->undoText() == QStringLiteral("Set micro_batch to %1").arg(micro_batch + 4));
  set("dp", &Layout::dp, 1);
  CHECK(undo->count() == 2);
  // The saved state stays a step of its own: an edit after a save is a new step.
  undo->setClean();
  set("dp", &Layout::dp, 4);
  CHECK(undo->count() == 3);
  undo->undo();
  CHECK(undo->isClean());
  undo->undo();
  undo->undo();
  CHECK(document.project().layout.micro_batch == micro_batch);
}

TEST_CASE("project document: changed() says what a change touched") {
  ProjectDocument document(default_or_fail());
  QSignalSpy spy(&document, &ProjectDocument::changed);
  const auto last = [&] { return spy.takeLast().at(0).value<ProjectDocument::Change>(); };
  document.push(new ui::SetServingTarget(&document, 1000, 40));
  CHECK(last() == ProjectDocument::Change::serving_target);
  document.push(new ui::SetAxisOrder(&document, AxisOrder::torchtitan));
  CHECK(last() == ProjectDocument::Change::project);
  ui::ClusterPart::Value cluster = ui::ClusterPart::get(document.project());
  cluster.cluster = "dgx-h100:nodes=1";
  document.push(new ui::ReplaceCluster(&document, cluster, QStringLiteral("Use the cluster dgx-h100:nodes=1")));
  CHECK(last() == ProjectDocument::Change::cluster);
  document.undoStack()->undo();
  CHECK(last() == ProjectDocument::Change::cluster);
  auto drawn = resolve_cluster("dgx-h100:nodes=1");
  REQUIRE(drawn);
  document.adoptDrawnCluster(*drawn);
  CHECK(last() == ProjectDocument::Change::drawn_cluster);
  CHECK(document.project().cluster.empty());
  CHECK(document.project().gpu_count == 8);
  document.reset(default_or_fail());
  CHECK(last() == ProjectDocument::Change::reset);
  CHECK(document.undoStack()->count() == 0);
}

TEST_CASE("project document: a topology document on the project's stack keeps the history when reloaded") {
  auto cluster = resolve_cluster("dgx-h100:nodes=1");
  REQUIRE(cluster);
  QUndoStack shared;
  ui::TopologyDocument topology(&shared);
  topology.setCluster(*cluster);
  Link link = topology.cluster().links.front();
  link.latency_s *= 2;
  topology.editLink(LinkId{0}, ui::LinkField::latency, link);
  CHECK(shared.count() == 1);
  topology.setCluster(*cluster);  // a reload (an undo of another cluster) keeps the project's steps
  CHECK(shared.count() == 1);
  // On its own stack (the editor alone), a new cluster is a new history.
  ui::TopologyDocument alone;
  alone.setCluster(*cluster);
  alone.editLink(LinkId{0}, ui::LinkField::latency, link);
  CHECK(alone.undoStack()->count() == 1);
  alone.setCluster(*cluster);
  CHECK(alone.undoStack()->count() == 0);
}
