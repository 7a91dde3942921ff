#pragma once
// The topology editor (views 1 and 5 of the design): draw or import a cluster, and see the
// communication map of a layout on it.
//
// Editing: a palette (GPU, NVSwitch, PCIe switch, CPU/NUMA domain, NIC, leaf, spine) to drag onto
// the canvas or to pick and click; Shift-drag from one device to another (or the Link tool) adds
// a link of the type and specification chosen in the toolbar; a property form edits the selected
// device or link; rubber-band selection, copy/paste, delete, undo/redo (every edit is a
// QUndoCommand on undoStack()), "replicate node × N" and "connect to fabric". Wheel zooms, the
// middle button pans, Fit shows everything. Nodes are containers, drawn as one box each
// ("node017 · 8 × H100") when zoomed out; their devices get items only once shown open, so a
// 2,048-node cluster loads in a fraction of a second. After every edit the cluster is checked
// (index_cluster): devices and links at fault turn red with the problem as tooltip, and the line
// under the canvas lists the problems.
//
// Communication map: setCommPlan() colours and widens every link by its load (bytes per step or
// busy time per step) for the axis picked in the combo box (DP/FSDP, TP, PP, CP, EP or all), with
// a scale beside it, and outlines the process groups of that axis.
//
// Integration:
//   editor->setCluster(cluster);                 // replaces the document, clears its own undo, fits
//   connect(editor, &TopologyEditor::clusterChanged, ...);  // then read editor->cluster()
//   editor->setCommPlan(plan, layout, placement);  // made from editor->cluster()
#include <QWidget>

#include <functional>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/comm/link_load.hpp"
#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "ui/topology/topology_document.hpp"

class QComboBox;
class QFormLayout;
class QGraphicsScene;
class QLabel;
class QSpinBox;
class QToolBar;
class QUndoStack;
class QAction;

namespace meshscope::ui {

class DeviceItem;
class GroupLayer;
class PropertyRows;
class LinkLayer;
class NodeItem;
class TopologyView;
class LoadLegend;

class TopologyEditor : public QWidget {
  Q_OBJECT

 public:
  enum class LoadMetric { bytes_per_step, busy_time_per_step };
  // How a link is drawn now (for tests and status text).
  struct LinkStyle {
    QColor colour;
    double width = 0;
    bool visible = false;
    bool flagged = false;
  };

  explicit TopologyEditor(QWidget* parent = nullptr);
  // Edits go on `shared_undo` (the project's history), which setCluster does not clear.
  explicit TopologyEditor(QUndoStack* shared_undo, QWidget* parent = nullptr);
  ~TopologyEditor() override;

  // ---- Document ----------------------------------------------------------------------------------
  void setCluster(Cluster cluster);
  [[nodiscard]] const Cluster& cluster() const;
  [[nodiscard]] QUndoStack* undoStack();
  [[nodiscard]] TopologyDocument* document() { return document_; }
  [[nodiscard]] const std::vector<ClusterProblem>& problems() const;
  [[nodiscard]] QString problemsText() const;

  // ---- View ----------------------------------------------------------------------------------------
  void fitAll();
  [[nodiscard]] TopologyView* view() const { return view_; }
  // Device positions (by id), zoom and centre.
  [[nodiscard]] nlohmann::json viewState() const;
  void setViewState(const nlohmann::json& state);

  // ---- Selection and actions -------------------------------------------------------------------
  void selectDevices(const std::vector<DeviceId>& devices);
  void selectLinks(const std::vector<LinkId>& links);
  [[nodiscard]] std::vector<DeviceId> selectedDevices() const;
  [[nodiscard]] std::vector<LinkId> selectedLinks() const;
  void deleteSelection();
  void copySelection();
  void paste();
  // Replicates the node of the first selected device (or the selected collapsed node).
  void replicateSelectedNode(int32_t copies);
  void connectFabric();
  // The fabric "Connect to fabric" builds: the line rate and kind of the NICs' present links.
  [[nodiscard]] FabricOptions fabricOptions() const;

  // ---- Communication map ---------------------------------------------------------------------------
  // Per-axis link traffic of `plan` (link_traffic_per_axis). The plan, layout and placement must
  // have been made from cluster() as it is now; a structural edit clears the map.
  void setCommPlan(const CommPlan& plan, const Layout& layout, const Placement& placement);
  void setLinkLoads(std::vector<AxisLinkTraffic> loads, Placement placement);
  void clearCommMap();
  // nullopt: every axis together.
  void setCommAxis(std::optional<MeshAxis> axis);
  void setLoadMetric(LoadMetric metric);
  [[nodiscard]] bool commMapShown() const { return !loads_.empty(); }

  // ---- Introspection -----------------------------------------------------------------------------
  [[nodiscard]] LinkStyle linkStyle(LinkId link) const;
  [[nodiscard]] bool deviceFlagged(DeviceId device) const;
  [[nodiscard]] int deviceItemCount() const;  // devices with an item now
  [[nodiscard]] int nodeBoxCount() const;
  [[nodiscard]] bool nodesCollapsed() const { return collapsed_; }
  [[nodiscard]] int groupOutlineCount() const;
  // The load shown on a link now (0: idle), in the unit of the metric.
  [[nodiscard]] double linkLoad(LinkId link) const;

 signals:
  // After every edit, undo and redo that changes the cluster (not after moves).
  void clusterChanged();
  void selectionChanged();

 private:
  void buildToolbars();
  void buildSidePanel();
  void onDocumentChanged(bool structure);
  void rebuildScene();
  void updateDetail();
  void materializeNode(int32_t node);
  void syncPositions();
  void refreshItems();
  void refreshLinkGeometry();
  void restyleLinks();
  void updateGroups();
  void updateProblemsLine();
  void showProperties();
  void showDeviceProperties(DeviceId device, PropertyRows& rows);
  void showLinkProperties(LinkId link, PropertyRows& rows);
  void showLinkSpecRows(LinkId link, LinkKind kind, PropertyRows& rows);
  void scheduleProperties();
  void computeLoads();
  void onSelectionChanged();
  void placeDevice(DeviceKind kind, QPointF position);
  void addLinkBetween(int32_t from, int32_t to);
  [[nodiscard]] Link linkFromToolbar() const;
  [[nodiscard]] QRectF nodeRect(int32_t node) const;
  [[nodiscard]] int32_t nodeAt(QPointF position) const;
  [[nodiscard]] QString linkToolTip(int32_t link) const;
  [[nodiscard]] QString nodeSummary(int32_t node) const;
  [[nodiscard]] const AxisLinkTraffic* shownLoads(AxisLinkTraffic& summed) const;

  TopologyDocument* document_;
  QGraphicsScene* scene_;
  TopologyView* view_;
  LinkLayer* link_layer_ = nullptr;
  GroupLayer* group_layer_ = nullptr;
  std::vector<DeviceItem*> device_items_;  // by device index; nullptr: not created
  std::unordered_map<int32_t, NodeItem*> node_items_;
  std::vector<std::vector<size_t>> node_members_;  // by node
  std::vector<char> node_materialized_;
  std::vector<QRectF> node_rects_;
  bool collapsed_ = false;
  std::unordered_map<std::string, QString> problem_by_id_;
  std::vector<char> link_selected_;
  std::vector<std::string> selected_ids_;  // of the selected devices, for rebuilds
  bool syncing_selection_ = false;
  std::vector<DeviceId> drag_devices_;
  std::vector<QPointF> drag_from_;
  ClusterFragment clipboard_;
  int paste_count_ = 0;

  // Communication map.
  std::vector<AxisLinkTraffic> loads_;
  Placement placement_;
  std::optional<MeshAxis> axis_;
  LoadMetric metric_ = LoadMetric::busy_time_per_step;
  std::vector<double> link_load_;  // shown value per link
  double max_load_ = 0;

  // Widgets.
  QToolBar* palette_bar_ = nullptr;
  QToolBar* action_bar_ = nullptr;
  QComboBox* link_kind_ = nullptr;
  QSpinBox* link_spec_a_ = nullptr;
  QSpinBox* link_spec_b_ = nullptr;
  QSpinBox* replicate_count_ = nullptr;
  QWidget* properties_ = nullptr;
  QFormLayout* form_ = nullptr;
  QLabel* properties_title_ = nullptr;
  QComboBox* axis_combo_ = nullptr;
  QComboBox* metric_combo_ = nullptr;
  LoadLegend* legend_ = nullptr;
  QLabel* comm_summary_ = nullptr;
  QLabel* problems_line_ = nullptr;
  // The item the property form shows: a device or a link index, or none.
  int32_t form_device_ = -1, form_link_ = -1;
  int form_kind_ = -1;                                  // the device or link kind the form's rows were built for
  std::vector<std::function<void()>> form_refreshers_;  // set each row's value from the document
  bool form_pending_ = false;
};

}  // namespace meshscope::ui
