// One undo history for the whole project: workload, layout and topology edits are steps on one
// stack, undone newest first and redone in order, each with a name a user can read.
#include <catch2/catch.hpp>

#include <QApplication>
#include <QSpinBox>
#include <QTest>
#include <QUndoStack>

#include "core/project/project.hpp"
#include "qt_catch.hpp"
#include "ui/panels/workload_panel.hpp"
#include "ui/topology/topology_document.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/topology/topology_items.hpp"
#include "ui/window/file_session.hpp"
#include "ui/window/main_window.hpp"

using namespace meshscope;

namespace {

Project default_or_fail() {
  Result<Project> project = default_project();
  REQUIRE(project);
  return *project;
}

// The latency of link 0 of the project's cluster: the drawn one once the topology was edited.
double first_link_latency(const Project& project) {
  REQUIRE(project.cluster_inline);
  REQUIRE_FALSE(project.cluster_inline->links.empty());
  return project.cluster_inline->links.front().latency_s;
}

}  // namespace

TEST_CASE("project undo: a workload edit then a topology edit are undone newest first and both redone") {
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  auto* editor = window.findChild<ui::TopologyEditor*>(QStringLiteral("topology_editor"));
  REQUIRE(editor != nullptr);
  REQUIRE_FALSE(editor->cluster().links.empty());
  const int64_t micro_batch = window.project().layout.micro_batch;
  const double latency = editor->cluster().links.front().latency_s;

  // The workload: a micro-batch size in the layout form.
  REQUIRE(window.workloadPanel()->layoutForm()->setValue("micro_batch", QString::number(micro_batch + 1)));
  window.waitForEvaluation();
  REQUIRE(window.project().layout.micro_batch == micro_batch + 1);
  // The topology: the latency of the first link, in the editor.
  Link edited = editor->cluster().links.front();
  edited.latency_s = 2 * latency + 1e-6;
  editor->document()->editLink(LinkId{0}, ui::LinkField::latency, edited);
  window.waitForEvaluation();
  CHECK(first_link_latency(window.project()) == edited.latency_s);
  CHECK(window.project().layout.micro_batch == micro_batch + 1);
  CHECK(window.session()->isModified());

  QUndoStack* undo = window.undoStack();
  // Each step says what it did ("edit" names nothing).
  CHECK(undo->undoText().contains(QStringLiteral("latency")));

  // The newest step first: the topology edit goes, the workload edit stays.
  undo->undo();
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch + 1);
  CHECK(editor->cluster().links.front().latency_s == latency);
  CHECK(undo->undoText().contains(QStringLiteral("micro_batch")));
  // Then the workload edit: back to the project as opened.
  undo->undo();
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch);
  CHECK(editor->cluster().links.front().latency_s == latency);
  CHECK_FALSE(window.session()->isModified());

  // Redo brings back both, the topology edit included.
  REQUIRE(undo->canRedo());
  undo->redo();
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch + 1);
  REQUIRE(undo->canRedo());
  undo->redo();
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch + 1);
  CHECK(first_link_latency(window.project()) == edited.latency_s);
  CHECK(editor->cluster().links.front().latency_s == edited.latency_s);
  CHECK(window.session()->isModified());
}

TEST_CASE("project undo: steps of a spin box on one field merge into one undo step") {
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  const int64_t micro_batch = window.project().layout.micro_batch;
  ui::KeyForm* form = window.workloadPanel()->layoutForm();
  for (int64_t step = 1; step <= 3; ++step)  // a spin box dragged up three steps
    REQUIRE(form->setValue("micro_batch", QString::number(micro_batch + step)));
  window.waitForEvaluation();
  QUndoStack* undo = window.undoStack();
  CHECK(undo->count() == 1);
  CHECK(window.project().layout.micro_batch == micro_batch + 3);
  // Another field is a step of its own.
  REQUIRE(form->setValue("dp", QStringLiteral("1")));
  CHECK(undo->count() == 2);
  undo->undo();
  undo->undo();
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch);
  CHECK_FALSE(window.session()->isModified());
}

TEST_CASE("project undo: a drawn cluster replaced by a generator comes back on undo, with its edits undoable") {
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  auto* editor = window.findChild<ui::TopologyEditor*>(QStringLiteral("topology_editor"));
  REQUIRE(editor != nullptr);
  const std::string generator = window.project().cluster;
  const size_t devices = editor->cluster().devices.size();
  const double latency = editor->cluster().links.front().latency_s;
  Link edited = editor->cluster().links.front();
  edited.latency_s = 2 * latency + 1e-6;
  editor->document()->editLink(LinkId{0}, ui::LinkField::latency, edited);
  window.waitForEvaluation();
  REQUIRE(window.project().cluster_inline);

  // Another node count in the workload panel: the generator's cluster replaces the drawn one.
  auto* nodes = window.workloadPanel()->findChild<QSpinBox*>(QStringLiteral("nodes"));
  REQUIRE(nodes != nullptr);
  nodes->setValue(nodes->value() + 1);
  window.waitForEvaluation();
  CHECK_FALSE(window.project().cluster_inline);
  CHECK(editor->cluster().devices.size() > devices);
  QUndoStack* undo = window.undoStack();
  CHECK(undo->undoText().contains(QStringLiteral("cluster")));

  // Undo: the drawn cluster, edit included, is the project's and the editor's again...
  undo->undo();
  REQUIRE(window.project().cluster_inline);
  CHECK(first_link_latency(window.project()) == edited.latency_s);
  CHECK(editor->cluster().devices.size() == devices);
  CHECK(editor->cluster().links.front().latency_s == edited.latency_s);
  // ... and its edit is the next step back.
  undo->undo();
  window.waitForEvaluation();
  CHECK(editor->cluster().links.front().latency_s == latency);
  CHECK_FALSE(window.session()->isModified());
  // Redo both: the edit, then the generator.
  undo->redo();
  CHECK(editor->cluster().links.front().latency_s == edited.latency_s);
  undo->redo();
  window.waitForEvaluation();
  CHECK(window.project().cluster != generator);
  CHECK(editor->cluster().devices.size() > devices);
}

TEST_CASE("project undo: Ctrl+Z in the topology editor undoes the project's last step") {
  ui::MainWindow window(default_or_fail());
  window.show();
  window.activateWindow();
  REQUIRE(QTest::qWaitForWindowActive(&window));
  window.waitForEvaluation();
  REQUIRE(window.showView(QStringLiteral("topology")));
  const int64_t micro_batch = window.project().layout.micro_batch;
  REQUIRE(window.workloadPanel()->layoutForm()->setValue("micro_batch", QString::number(micro_batch + 1)));
  window.waitForEvaluation();
  auto* editor = window.findChild<ui::TopologyEditor*>(QStringLiteral("topology_editor"));
  REQUIRE(editor != nullptr);
  QWidget* canvas = editor->view();
  canvas->setFocus();
  QApplication::processEvents();
  // One history, one Undo key: the editor's toolbar and Edit → Undo do not fight over it.
  QTest::keyClick(canvas, Qt::Key_Z, Qt::ControlModifier);
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch);
  QTest::keySequence(canvas, QKeySequence::Redo);
  window.waitForEvaluation();
  CHECK(window.project().layout.micro_batch == micro_batch + 1);
}

TEST_CASE("project undo: redoing a generator change then a topology edit at once edits the generated cluster") {
  ui::MainWindow window(default_or_fail());
  window.waitForEvaluation();
  auto* editor = window.findChild<ui::TopologyEditor*>(QStringLiteral("topology_editor"));
  REQUIRE(editor != nullptr);
  const size_t devices = editor->cluster().devices.size();
  auto* nodes = window.workloadPanel()->findChild<QSpinBox*>(QStringLiteral("nodes"));
  REQUIRE(nodes != nullptr);
  nodes->setValue(nodes->value() + 1);
  window.waitForEvaluation();
  const size_t grown = editor->cluster().devices.size();
  REQUIRE(grown > devices);
  Link edited = editor->cluster().links.front();
  edited.latency_s = 3 * edited.latency_s + 1e-6;
  editor->document()->editLink(LinkId{0}, ui::LinkField::latency, edited);
  window.waitForEvaluation();

  // Back to the start and forward again as fast as keys repeat: no evaluation in between.
  QUndoStack* undo = window.undoStack();
  undo->undo();
  undo->undo();
  CHECK(editor->cluster().devices.size() == devices);
  undo->redo();
  CHECK(editor->cluster().devices.size() == grown);  // the generator's cluster, before it is evaluated
  undo->redo();
  CHECK(editor->cluster().devices.size() == grown);
  CHECK(editor->cluster().links.front().latency_s == edited.latency_s);
  window.waitForEvaluation();
  REQUIRE(window.project().cluster_inline);
  CHECK(window.project().cluster_inline->devices.size() == grown);
  CHECK(first_link_latency(window.project()) == edited.latency_s);
}
