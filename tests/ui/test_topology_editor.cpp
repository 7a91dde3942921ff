// The topology editor: loading every sample cluster, undo/redo of every command, merged field
// edits, replicating nodes, problems flagged in place, the communication map, and snapshots of
// the default project's cluster (PNG under /tmp, looked at by hand).
#include <catch2/catch.hpp>

#include <QApplication>
#include <QElapsedTimer>
#include <QUndoStack>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>

#include <nlohmann/json.hpp>

#include "core/comm/comm_plan.hpp"
#include "core/model/catalogue.hpp"
#include "core/project/project.hpp"
#include "core/topology/cluster_io.hpp"
#include "core/topology/generators.hpp"
#include "qt_catch.hpp"
#include "ui/topology/topology_document.hpp"
#include "ui/topology/topology_editor.hpp"
#include "ui/topology/topology_items.hpp"

using namespace meshscope;
using meshscope::ui::TopologyDocument;
using meshscope::ui::TopologyEditor;

namespace {

Cluster make(const std::string& spec) {
  auto cluster = resolve_cluster(spec);
  REQUIRE(cluster);
  return std::move(*cluster);
}

Cluster sample(std::string_view file) {
  for (const SampleCluster& s : sample_clusters())
    if (s.file == file) {
      auto cluster = cluster_from_json(nlohmann::json::parse(s.text), std::string(file));
      REQUIRE(cluster);
      return std::move(*cluster);
    }
  FAIL("no sample " << file);
  return {};
}

std::string text_of(const Cluster& c) {
  return cluster_to_json(c).dump();
}

DeviceId device_named(const Cluster& c, const std::string& id) {
  const auto it = c.by_id.find(id);
  REQUIRE(it != c.by_id.end());
  return it->second;
}

LinkId link_named(const Cluster& c, const std::string& id) {
  for (size_t i = 0; i < c.links.size(); ++i)
    if (c.links[i].id == id) return LinkId{static_cast<int32_t>(i)};
  FAIL("no link " << id);
  return {};
}

int count_kind(const Cluster& c, DeviceKind kind) {
  return static_cast<int>(
      std::count_if(c.devices.begin(), c.devices.end(), [&](const Device& d) { return d.kind == kind; }));
}

struct Shown {
  TopologyEditor editor;
  explicit Shown(Cluster cluster, QSize size = QSize(1400, 900)) {
    editor.resize(size);
    editor.show();
    editor.setCluster(std::move(cluster));
    QApplication::processEvents();
    editor.fitAll();
    QApplication::processEvents();
  }
};

struct Planned {
  Cluster cluster;
  Layout layout;
  Placement placement;
  CommPlan plan;
};

// The default project (Llama-3.1-70B, TP 8 · PP 4 (v 5) · DP 2 · SP on 8 DGX H100).
Planned default_project_plan() {
  const Result<Project> project = default_project();
  REQUIRE(project);
  Planned p;
  p.cluster = make(project->cluster);
  p.layout = project->layout;
  const Router router(p.cluster);
  auto placement = place_layout(p.layout, p.cluster, router);
  REQUIRE(placement);
  p.placement = *placement;
  p.plan = plan_communication(project->model, project->training, p.layout, p.cluster, router, p.placement);
  return p;
}

void save(QWidget& widget, const char* path) {
  // Twice: the property form is rebuilt by a queued call, and its new rows are shown by another.
  QApplication::processEvents();
  QApplication::processEvents();
  CHECK(widget.grab().save(path));
}

}  // namespace

TEST_CASE("topology editor: every sample cluster loads with an item for every device and link, or node boxes") {
  for (const SampleCluster& sample : sample_clusters()) {
    INFO(sample.file);
    auto cluster = cluster_from_json(nlohmann::json::parse(sample.text), std::string(sample.file));
    REQUIRE(cluster);
    const size_t devices = cluster->devices.size(), links = cluster->links.size();
    Shown shown(std::move(*cluster));
    TopologyEditor& e = shown.editor;
    CHECK(e.problems().empty());
    CHECK(e.problemsText().startsWith("No problems"));
    if (e.nodesCollapsed()) {
      CHECK(e.nodeBoxCount() == static_cast<int>(e.document()->nodes().size()));
    } else {
      CHECK(e.deviceItemCount() == static_cast<int>(devices));
      for (size_t l = 0; l < links; ++l) CHECK(e.linkStyle(LinkId{static_cast<int32_t>(l)}).visible);
    }
  }
}

TEST_CASE("topology editor: undo of every command restores the cluster exactly and redo re-applies it") {
  TopologyDocument doc;
  doc.setCluster(make("dgx-h100:nodes=2"));
  using Edit = std::pair<const char*, std::function<void(TopologyDocument&)>>;
  const std::vector<Edit> edits{
      {"add device",
       [](TopologyDocument& d) {
         Device nic;
         nic.id = "n0.nic8";
         nic.kind = DeviceKind::nic;
         nic.node = 0;
         nic.local_index = 8;
         d.addDevice(nic, QPointF(10, 20));
       }},
      {"add link",
       [](TopologyDocument& d) {
         Link l;
         l.a = device_named(d.cluster(), "n0.gpu0");
         l.b = device_named(d.cluster(), "n1.gpu0");
         l.kind = LinkKind::nvlink;
         l.nvlink_generation = 4;
         l.nvlink_count = 2;
         l.bandwidth_bytes_per_s = nvlink_bandwidth(4, 2);
         d.addLink(l);
       }},
      {"delete a device with its links and another link",
       [](TopologyDocument& d) {
         d.deleteItems({device_named(d.cluster(), "n0.pcie1")}, {link_named(d.cluster(), "n1.gpu3-nvsw")});
       }},
      {"edit a device field",
       [](TopologyDocument& d) {
         const DeviceId id = device_named(d.cluster(), "n1.cpu0");
         Device cpu = d.cluster().device(id);
         cpu.name = "Xeon renamed";
         d.editDevice(id, meshscope::ui::DeviceField::name, cpu);
       }},
      {"edit a link field",
       [](TopologyDocument& d) {
         const LinkId id = link_named(d.cluster(), "n0.gpu0-nvsw");
         Link l = d.cluster().link(id);
         l.nvlink_count = 12;
         l.bandwidth_bytes_per_s = nvlink_bandwidth(4, 12);
         d.editLink(id, meshscope::ui::LinkField::nvlink_count, l);
       }},
      {"replicate a node", [](TopologyDocument& d) { d.replicateNode(1, 2); }},
      {"connect to fabric",
       [](TopologyDocument& d) { d.connectToFabric(FabricOptions{.nodes_per_leaf = 1, .oversubscription = 2}); }},
      {"paste",
       [](TopologyDocument& d) {
         d.paste(d.copy({device_named(d.cluster(), "n0.gpu0"), device_named(d.cluster(), "n0.nvsw")}), QPointF(40, 40));
       }},
  };
  for (const auto& [name, edit] : edits) {
    INFO(name);
    const std::string before = text_of(doc.cluster());
    const auto positions_before = doc.positions();
    const int steps = doc.undoStack()->count();
    edit(doc);
    CHECK(doc.undoStack()->count() == steps + 1);
    const std::string after = text_of(doc.cluster());
    CHECK(after != before);
    doc.undoStack()->undo();
    CHECK(text_of(doc.cluster()) == before);
    CHECK(doc.positions() == positions_before);
    doc.undoStack()->redo();
    CHECK(text_of(doc.cluster()) == after);
    // A pasted GPU and NVSwitch form an island until linked: that is reported, not refused.
    CHECK(doc.problems().empty() == (std::string_view(name) != "paste"));
  }
  // Undoing everything gets back the generated cluster.
  while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
  CHECK(text_of(doc.cluster()) == text_of(make("dgx-h100:nodes=2")));
}

TEST_CASE("topology editor: a drag is one move command, undone to where the devices were") {
  TopologyDocument doc;
  doc.setCluster(make("dgx-h100:nodes=1"));
  const DeviceId a = device_named(doc.cluster(), "n0.gpu0"), b = device_named(doc.cluster(), "n0.gpu1");
  const std::vector<QPointF> from{doc.positions()[a.index()], doc.positions()[b.index()]};
  const std::vector<QPointF> to{from[0] + QPointF(100, 50), from[1] + QPointF(100, 50)};
  doc.previewPosition(a, to[0]);  // what the items report while dragged
  doc.previewPosition(b, to[1]);
  doc.moveDevices({a, b}, from, to);
  CHECK(doc.undoStack()->count() == 1);
  CHECK(doc.undoStack()->text(0) == "Move 2 devices");
  doc.undoStack()->undo();
  CHECK(doc.positions()[a.index()] == from[0]);
  CHECK(doc.positions()[b.index()] == from[1]);
  doc.undoStack()->redo();
  CHECK(doc.positions()[b.index()] == to[1]);
}

TEST_CASE("topology editor: consecutive edits of one field merge into one undo step") {
  TopologyDocument doc;
  doc.setCluster(make("dgx-h100:nodes=1"));
  const std::string original = text_of(doc.cluster());
  const LinkId id = link_named(doc.cluster(), "n0.gpu0-pcie0");
  for (const int lanes : {8, 4, 2}) {  // a spin box stepping down
    Link l = doc.cluster().link(id);
    l.pcie_lanes = lanes;
    l.bandwidth_bytes_per_s = pcie_bandwidth(l.pcie_generation, lanes);
    doc.editLink(id, meshscope::ui::LinkField::pcie_lanes, l);
  }
  CHECK(doc.undoStack()->count() == 1);
  CHECK(doc.cluster().link(id).pcie_lanes == 2);
  // PCIe Gen5: 3.938 GB/s per lane per direction (PCI-SIG, 128b/130b).
  CHECK_THAT(doc.cluster().link(id).bandwidth_bytes_per_s, Catch::Matchers::WithinRel(2 * 3.938e9, 1e-9));
  // Another field, or another link, is a new step.
  Link l = doc.cluster().link(id);
  l.latency_s = 2e-6;
  doc.editLink(id, meshscope::ui::LinkField::latency, l);
  CHECK(doc.undoStack()->count() == 2);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  CHECK(text_of(doc.cluster()) == original);
}

TEST_CASE("topology editor: replicating a node × N adds N times its devices, linked and valid") {
  TopologyDocument doc;
  doc.setCluster(make("dgx-h100:nodes=2"));
  const size_t devices = doc.cluster().devices.size();
  const size_t links = doc.cluster().links.size();
  constexpr int kCopies = 3;
  constexpr int kPerNode = 8 + 1 + 2 + 4 + 8;           // GPUs, NVSwitch fabric, CPUs, PCIe switches, NICs
  constexpr int kLinksPerNode = 8 + 8 + 8 + 4 + 1 + 8;  // NVLink, GPU PCIe, NIC PCIe, switch uplinks, UPI, NIC–leaf
  doc.replicateNode(0, kCopies);
  const Cluster& c = doc.cluster();
  CHECK(c.devices.size() == devices + kCopies * kPerNode);
  CHECK(c.links.size() == links + kCopies * kLinksPerNode);
  CHECK(doc.problems().empty());  // index_cluster: every new GPU reaches every other
  CHECK(c.num_gpus() == 8 * (2 + kCopies));
  CHECK(c.node_names.size() == 2 + kCopies);
  CHECK(c.node_names.back() == "node004");
  const DeviceId gpu = device_named(c, "n4.gpu7");
  CHECK(c.device(gpu).node == 4);
  CHECK(c.device(gpu).local_index == 7);
  // The copy's NIC of rail 3 joins the same rail-3 leaf as the original's.
  const Link& uplink = c.link(link_named(c, "n4.nic3-leaf.r3.p0"));
  CHECK(c.device(uplink.b).id == "leaf.r3.p0");
  // Placed beside the cluster, not on top of it.
  double right = -1e300;
  for (size_t i = 0; i < devices; ++i) right = std::max(right, doc.positions()[i].x());
  CHECK(doc.positions()[gpu.index()].x() > right);

  // Then a new fabric over all five nodes: one group of rail leaves, spines above them.
  doc.connectToFabric(FabricOptions{});
  CHECK(doc.problems().empty());
  CHECK(count_kind(doc.cluster(), DeviceKind::leaf_switch) == 8);
}

TEST_CASE("topology editor: zero bandwidth, dangling links and cut-off GPUs are flagged in place") {
  Shown shown(make("dgx-h100:nodes=1"));
  TopologyEditor& e = shown.editor;
  TopologyDocument& doc = *e.document();
  const LinkId nvlink = link_named(doc.cluster(), "n0.gpu2-nvsw");
  const auto normal = e.linkStyle(nvlink);
  CHECK_FALSE(normal.flagged);

  Link zero = doc.cluster().link(nvlink);
  zero.bandwidth_bytes_per_s = 0;
  doc.editLink(nvlink, meshscope::ui::LinkField::bandwidth, zero);
  CHECK(e.linkStyle(nvlink).flagged);
  CHECK(e.linkStyle(nvlink).colour != normal.colour);
  CHECK(e.problemsText().contains("must have a positive bandwidth"));
  doc.undoStack()->undo();
  CHECK_FALSE(e.linkStyle(nvlink).flagged);
  CHECK(e.problemsText().startsWith("No problems"));

  Link dangling;
  dangling.id = "n0.gpu0-nowhere";
  dangling.a = device_named(doc.cluster(), "n0.gpu0");
  dangling.b = DeviceId{100000};
  dangling.bandwidth_bytes_per_s = 1e9;
  doc.addLink(dangling);
  CHECK(e.problemsText().contains("not a device of the cluster"));
  doc.undoStack()->undo();

  Device lonely;
  lonely.id = "n0.gpu8";
  lonely.kind = DeviceKind::gpu;
  lonely.node = 0;
  lonely.local_index = 8;  // after the others in rank order: the one cut off from GPU 0
  const DeviceId added = doc.addDevice(lonely, QPointF(0, -400));
  CHECK(e.deviceFlagged(added));
  CHECK(e.problemsText().contains("has no path"));
}

TEST_CASE("topology editor: the communication map colours loaded links apart from idle ones, per axis") {
  const Planned p = default_project_plan();
  Shown shown(p.cluster);
  TopologyEditor& e = shown.editor;
  const Cluster& c = e.cluster();
  const LinkId nvlink = link_named(c, "n0.gpu0-nvsw");
  const LinkId nic = link_named(c, "n0.nic0-leaf.r0.p0");
  const LinkId upi = link_named(c, "n0.cpu0-cpu1");
  const auto before = e.linkStyle(nvlink);
  e.setCommPlan(p.plan, p.layout, p.placement);
  REQUIRE(e.commMapShown());

  e.setCommAxis(MeshAxis::tp);
  CHECK(e.linkLoad(nvlink) > 0);
  CHECK(e.linkLoad(nic) == 0);  // TP 8 stays inside the node
  CHECK(e.linkStyle(nvlink).colour != e.linkStyle(nic).colour);
  CHECK(e.linkStyle(nvlink).width > e.linkStyle(nic).width);
  CHECK(e.linkStyle(nvlink).colour != before.colour);
  CHECK(e.groupOutlineCount() == 8);  // one TP group per node

  e.setCommAxis(MeshAxis::dp);
  CHECK(e.linkLoad(nic) > 0);  // DP 2 crosses nodes on every rail
  CHECK(e.linkLoad(upi) == 0);
  CHECK(e.linkStyle(nic).colour != e.linkStyle(upi).colour);
  // 32 DP groups (TP 8 × PP 4) of 2 ranks on 2 nodes: two outlines each.
  CHECK(e.groupOutlineCount() == 64);

  e.setCommAxis(std::nullopt);
  CHECK(e.linkLoad(nvlink) > 0);
  CHECK(e.linkLoad(nic) > 0);
  CHECK(e.groupOutlineCount() == 0);
  e.clearCommMap();
  CHECK(e.linkStyle(nvlink).colour == before.colour);
}

TEST_CASE("topology editor: a full xGMI mesh is drawn on an ellipse, every link seen, picked and loaded") {
  // 8 × MI300X: 28 GPU–GPU links. In a row they would lie on top of each other along it; on an
  // ellipse no three GPUs are collinear, so each link is its own chord.
  const Cluster c = make("mi300x:nodes=1");
  const std::vector<QPointF> at = meshscope::ui::auto_layout(c);
  std::vector<QLineF> lines;
  std::vector<size_t> mesh;
  for (size_t i = 0; i < c.links.size(); ++i) {
    const Link& l = c.links[i];
    lines.emplace_back(at[l.a.index()], at[l.b.index()]);
    if (l.kind == LinkKind::xgmi && c.device(l.a).kind == DeviceKind::gpu) mesh.push_back(i);
  }
  REQUIRE(mesh.size() == 28);
  for (const size_t i : mesh)
    for (const DeviceId g : c.gpus) {
      if (g == c.links[i].a || g == c.links[i].b) continue;
      // No chord passes within a device's half height of a third GPU's centre.
      const QLineF& l = lines[i];
      const QPointF d = l.p2() - l.p1();
      const double t = std::clamp(QPointF::dotProduct(at[g.index()] - l.p1(), d) / QPointF::dotProduct(d, d), 0.0, 1.0);
      const QPointF nearest = l.p1() + t * d;
      CHECK(std::hypot(nearest.x() - at[g.index()].x(), nearest.y() - at[g.index()].y()) > 20);
    }
  meshscope::ui::LinkLayer layer;
  layer.setLines(lines);
  for (const size_t i : mesh) {
    bool picked = false;
    for (double t = 0.2; t <= 0.8 && !picked; t += 0.05) picked = layer.linkAt(lines[i].pointAt(t), 2.0) == int32_t(i);
    INFO(c.links[i].id);
    CHECK(picked);
  }
  // TP 8 on the node: the map loads every xGMI link, all alike (the channel search's rings).
  Planned p;
  p.cluster = c;
  p.layout.tp = 8;
  const Router router(p.cluster);
  auto placement = place_layout(p.layout, p.cluster, router);
  REQUIRE(placement);
  p.placement = *placement;
  TrainingWorkload w;
  w.seq_len = 4096;
  w.global_batch = 8;
  const auto model = model_preset("llama3-8b");
  REQUIRE(model);
  p.plan = plan_communication(*model, w, p.layout, p.cluster, router, p.placement);
  Shown shown(p.cluster);
  TopologyEditor& e = shown.editor;
  e.setCommPlan(p.plan, p.layout, p.placement);
  REQUIRE(e.commMapShown());
  const double first = e.linkLoad(LinkId{static_cast<int32_t>(mesh.front())});
  CHECK(first > 0);
  for (const size_t i : mesh)
    CHECK_THAT(e.linkLoad(LinkId{static_cast<int32_t>(i)}), Catch::Matchers::WithinRel(first, 1e-6));
}

TEST_CASE("topology editor: editing through the widget (place, link, delete, copy/paste) is undoable") {
  Shown shown(sample("teaching-2x4.json"));
  TopologyEditor& e = shown.editor;
  const std::string original = text_of(e.cluster());
  int changes = 0;
  QObject::connect(&e, &TopologyEditor::clusterChanged, [&] { ++changes; });
  e.selectDevices({device_named(e.cluster(), "a.gpu1")});
  e.copySelection();
  e.paste();
  CHECK(e.cluster().by_id.contains("a.gpu1-2"));
  CHECK(e.selectedDevices().size() == 1);
  e.deleteSelection();
  CHECK_FALSE(e.cluster().by_id.contains("a.gpu1-2"));
  e.undoStack()->undo();  // the delete
  e.undoStack()->undo();  // the paste
  CHECK(text_of(e.cluster()) == original);
  CHECK(changes == 4);
}

TEST_CASE("topology editor: snapshots of the default cluster, a zoomed sample and the TP and DP maps", "[snapshot]") {
  const Planned p = default_project_plan();
  {
    Shown shown(p.cluster, QSize(1500, 950));
    save(shown.editor, "/tmp/topology_dgx_h100_8.png");
    shown.editor.setCommPlan(p.plan, p.layout, p.placement);
    shown.editor.setCommAxis(MeshAxis::tp);
    shown.editor.selectLinks({link_named(shown.editor.cluster(), "n0.gpu0-nvsw")});
    save(shown.editor, "/tmp/topology_comm_tp.png");
    shown.editor.setCommAxis(MeshAxis::dp);
    save(shown.editor, "/tmp/topology_comm_dp.png");
  }
  {
    Shown shown(sample("teaching-2x4.json"), QSize(1300, 850));
    shown.editor.view()->setZoom(1.0);
    shown.editor.view()->centerOn(0, 120);
    shown.editor.selectDevices({device_named(shown.editor.cluster(), "a.gpu1")});
    save(shown.editor, "/tmp/topology_teaching_zoomed.png");
  }
}

TEST_CASE("topology editor: 2,048 DGX H100 nodes load, fit and paint as node boxes", "[perf]") {
  using Clock = std::chrono::steady_clock;
  auto ms = [](Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
  };
  const auto t0 = Clock::now();
  Cluster cluster = make("dgx-h100:nodes=2048");
  const auto t1 = Clock::now();
  TopologyEditor editor;
  editor.resize(1400, 900);
  editor.show();
  editor.setCluster(std::move(cluster));
  const auto t2 = Clock::now();
  editor.fitAll();
  const auto t3 = Clock::now();
  const QPixmap fitted = editor.grab();
  const auto t4 = Clock::now();
  CHECK(editor.nodesCollapsed());
  CHECK(editor.nodeBoxCount() == 2048);
  CHECK(editor.deviceItemCount() == 512 + 16);  // only the leaves and spines have items
  // Zoom in on one node: only the nodes in view get device items.
  editor.view()->setZoom(0.8);
  editor.view()->centerOn(editor.document()->positions()[device_named(editor.cluster(), "n1000.gpu3").index()]);
  const auto t5 = Clock::now();
  const QPixmap zoomed = editor.grab();
  const auto t6 = Clock::now();
  CHECK_FALSE(editor.nodesCollapsed());
  CHECK(editor.deviceItemCount() < 528 + 23 * 30);
  // One edit on the big cluster: re-index, re-check and redraw.
  const LinkId l = link_named(editor.cluster(), "n1000.gpu3-nvsw");
  Link edited = editor.cluster().link(l);
  edited.latency_s = 1e-6;
  editor.document()->editLink(l, meshscope::ui::LinkField::latency, edited);
  const auto t7 = Clock::now();
  std::printf(
      "topology editor, dgx-h100:nodes=2048 (%zu devices, %zu links): generate %.0f ms, setCluster %.0f ms, "
      "fitAll %.0f ms, first paint (collapsed) %.0f ms, zoom to a node %.0f ms, paint zoomed %.0f ms, "
      "one field edit %.0f ms\n",
      editor.cluster().devices.size(), editor.cluster().links.size(), ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t3, t4),
      ms(t4, t5), ms(t5, t6), ms(t6, t7));
  fitted.save("/tmp/topology_2048_fit.png");
  zoomed.save("/tmp/topology_2048_zoomed.png");
}
