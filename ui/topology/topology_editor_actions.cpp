#include "ui/topology/topology_editor.hpp"

#include <QAction>
#include <QApplication>
#include <QButtonGroup>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDrag>
#include <QFormLayout>
#include <QGraphicsScene>
#include <QGuiApplication>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QMouseEvent>
#include <QPainter>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>

#include "core/topology/link_defaults.hpp"
#include "core/topology/routing.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/topology/topology_items.hpp"

#include "ui/topology/topology_editor_shared.hpp"

// The topology editor's selection and editing actions, the view state and introspection for tests.
namespace meshscope::ui {

using namespace editor_detail;

// ---- Selection and actions -----------------------------------------------------------------------

void TopologyEditor::selectDevices(const std::vector<DeviceId>& devices) {
  syncing_selection_ = true;
  scene_->clearSelection();
  std::fill(link_selected_.begin(), link_selected_.end(), 0);
  for (const DeviceId d : devices) {
    if (!d.valid() || d.index() >= device_items_.size()) continue;
    const int32_t node = cluster().device(d).node;
    if (!device_items_[d.index()] && node >= 0) materializeNode(node);
    if (device_items_[d.index()]) device_items_[d.index()]->setSelected(true);
  }
  syncing_selection_ = false;
  onSelectionChanged();
}

void TopologyEditor::selectLinks(const std::vector<LinkId>& links) {
  syncing_selection_ = true;
  scene_->clearSelection();
  syncing_selection_ = false;
  std::fill(link_selected_.begin(), link_selected_.end(), 0);
  for (const LinkId l : links)
    if (l.valid() && l.index() < link_selected_.size()) link_selected_[l.index()] = 1;
  onSelectionChanged();
}

std::vector<DeviceId> TopologyEditor::selectedDevices() const {
  std::vector<DeviceId> devices;
  for (QGraphicsItem* item : scene_->selectedItems()) {
    if (item->type() == kDeviceItemType) devices.push_back(DeviceId{static_cast<DeviceItem*>(item)->device()});
    if (item->type() == kNodeItemType) {
      const int32_t node = static_cast<NodeItem*>(item)->node();
      for (const size_t i : node_members_[static_cast<size_t>(node)])
        devices.push_back(DeviceId{static_cast<int32_t>(i)});
    }
  }
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  return devices;
}

std::vector<LinkId> TopologyEditor::selectedLinks() const {
  std::vector<LinkId> links;
  for (size_t i = 0; i < link_selected_.size(); ++i)
    if (link_selected_[i]) links.push_back(LinkId{static_cast<int32_t>(i)});
  return links;
}

void TopologyEditor::deleteSelection() {
  document_->deleteItems(selectedDevices(), selectedLinks());
}

void TopologyEditor::copySelection() {
  clipboard_ = document_->copy(selectedDevices());
  paste_count_ = 0;
}

void TopologyEditor::paste() {
  if (clipboard_.empty()) return;
  ++paste_count_;
  const size_t first = cluster().devices.size();
  document_->paste(clipboard_, QPointF(40.0 * paste_count_, 40.0 * paste_count_));
  std::vector<DeviceId> pasted;
  for (size_t i = first; i < cluster().devices.size(); ++i) pasted.push_back(DeviceId{static_cast<int32_t>(i)});
  selectDevices(pasted);
}

void TopologyEditor::replicateSelectedNode(int32_t copies) {
  const auto devices = selectedDevices();
  for (const DeviceId d : devices)
    if (cluster().device(d).node >= 0) {
      document_->replicateNode(cluster().device(d).node, copies);
      return;
    }
}

FabricOptions TopologyEditor::fabricOptions() const {
  FabricOptions options;
  const Cluster& c = cluster();
  for (const Link& l : c.links) {
    if (!is_network_link(l.kind) || l.gbits_per_s <= 0) continue;
    if (!l.a.valid() || !l.b.valid() || l.a.index() >= c.devices.size() || l.b.index() >= c.devices.size()) continue;
    if (c.device(l.a).kind == DeviceKind::nic || c.device(l.b).kind == DeviceKind::nic) {
      options.kind = l.kind;
      options.nic_gbps = l.gbits_per_s;
      break;
    }
  }
  return options;
}

void TopologyEditor::connectFabric() {
  document_->connectToFabric(fabricOptions());
}

void TopologyEditor::placeDevice(DeviceKind kind, QPointF position) {
  const Cluster& c = cluster();
  const bool fabric = kind == DeviceKind::leaf_switch || kind == DeviceKind::spine_switch;
  const int32_t node = fabric ? -1 : nodeAt(position);
  Device d;
  d.kind = kind;
  d.node = node;
  std::string prefix;
  int32_t same_kind = 0, cpus = 0;
  std::string model;
  for (const Device& other : c.devices) {
    if (other.kind == DeviceKind::gpu && model.empty()) model = other.gpu_model;
    if (other.node != node) continue;
    same_kind += other.kind == kind ? 1 : 0;
    cpus += other.kind == DeviceKind::cpu ? 1 : 0;
    if (prefix.empty() && node >= 0 && other.id.find('.') != std::string::npos)
      prefix = other.id.substr(0, other.id.find('.') + 1);
  }
  if (node >= 0 && prefix.empty()) {
    // (char + std::to_string rather than "n" + std::to_string: GCC 12's -Wrestrict false positive
    // on operator+(const char*, std::string&&), PR 105329.)
    prefix = std::to_string(node);
    prefix.insert(prefix.begin(), 'n');
    prefix += '.';
  }
  d.id = prefix + kind_stem(kind) + std::to_string(same_kind);
  if (kind == DeviceKind::gpu || kind == DeviceKind::nic) d.local_index = same_kind;
  if (kind == DeviceKind::gpu) d.gpu_model = model.empty() ? "h100-sxm" : model;
  d.numa = kind == DeviceKind::cpu ? cpus : (cpus > 0 ? 0 : -1);
  const DeviceId added = document_->addDevice(std::move(d), position);
  selectDevices({added});
}

Link TopologyEditor::linkFromToolbar() const {
  Link l;
  l.kind = static_cast<LinkKind>(link_kind_->currentData().toInt());
  const int a = link_spec_a_->value(), b = link_spec_b_->value();
  if (l.kind == LinkKind::nvlink) {
    l.nvlink_generation = a;
    l.nvlink_count = b;
    l.bandwidth_bytes_per_s = nvlink_bandwidth(a, b);
  } else if (l.kind == LinkKind::pcie) {
    l.pcie_generation = a;
    l.pcie_lanes = b;
    l.bandwidth_bytes_per_s = pcie_bandwidth(a, b);
  } else if (is_network_link(l.kind)) {
    l.gbits_per_s = b;
    l.bandwidth_bytes_per_s = network_bandwidth(b);
  } else {
    l.bandwidth_bytes_per_s = b * 1e9;
  }
  return l;
}

void TopologyEditor::addLinkBetween(int32_t from, int32_t to) {
  const Cluster& c = cluster();
  Link l = linkFromToolbar();
  l.a = DeviceId{from};
  l.b = DeviceId{to};
  l.latency_s = default_link_latency_s(l.kind, c.device(l.a).kind, c.device(l.b).kind);
  const LinkId added = document_->addLink(std::move(l));
  selectLinks({added});
}

// ---- View ------------------------------------------------------------------------------------------

void TopologyEditor::fitAll() {
  QRectF bounds;
  for (const auto& [node, item] : node_items_) bounds |= item->rect();
  for (size_t i = 0; i < device_items_.size(); ++i)
    if (cluster().devices[i].node < 0)
      bounds |= QRectF(document_->positions()[i] - QPointF(kDeviceWidth, kDeviceHeight),
                       QSizeF(2 * kDeviceWidth, 2 * kDeviceHeight));
  if (bounds.isEmpty()) bounds = QRectF(-200, -150, 400, 300);
  bounds.adjust(-30, -30, 30, 30);
  scene_->setSceneRect(bounds.adjusted(-bounds.width(), -bounds.height(), bounds.width(), bounds.height()));
  view_->fitInView(bounds, Qt::KeepAspectRatio);
  updateDetail();
}

nlohmann::json TopologyEditor::viewState() const {
  nlohmann::json positions = nlohmann::json::object();
  const Cluster& c = cluster();
  for (size_t i = 0; i < c.devices.size(); ++i)
    positions[c.devices[i].id] = {document_->positions()[i].x(), document_->positions()[i].y()};
  const QPointF centre = view_->mapToScene(view_->viewport()->rect().center());
  return {{"zoom", view_->zoom()}, {"centre", {centre.x(), centre.y()}}, {"positions", positions}};
}

void TopologyEditor::setViewState(const nlohmann::json& state) {
  if (!state.is_object()) return;
  const Cluster& c = cluster();
  if (const auto it = state.find("positions"); it != state.end() && it->is_object()) {
    std::vector<DeviceId> devices;
    std::vector<QPointF> points;
    for (const auto& [id, point] : it->items()) {
      const auto found = c.by_id.find(id);
      if (found == c.by_id.end() || !point.is_array() || point.size() != 2 || !point[0].is_number() ||
          !point[1].is_number())
        continue;
      devices.push_back(found->second);
      points.emplace_back(point[0].get<double>(), point[1].get<double>());
    }
    document_->setPositions(devices, points);
  }
  if (const auto zoom = state.find("zoom"); zoom != state.end() && zoom->is_number())
    view_->setZoom(zoom->get<double>());
  if (const auto centre = state.find("centre");
      centre != state.end() && centre->is_array() && centre->size() == 2 && (*centre)[0].is_number())
    view_->centerOn((*centre)[0].get<double>(), (*centre)[1].get<double>());
  updateDetail();
}

// ---- Introspection --------------------------------------------------------------------------------

TopologyEditor::LinkStyle TopologyEditor::linkStyle(LinkId link) const {
  LinkStyle style;
  if (!link_layer_ || !link.valid() || link.index() >= link_layer_->lines().size()) return style;
  const QPen& pen = link_layer_->penOf(link.index());
  style.colour = pen.color();
  style.width = pen.widthF();
  style.visible = !link_layer_->lines()[link.index()].isNull();
  style.flagged = problem_by_id_.contains(cluster().link(link).id);
  return style;
}

bool TopologyEditor::deviceFlagged(DeviceId device) const {
  return device.valid() && device.index() < cluster().devices.size() &&
         problem_by_id_.contains(cluster().device(device).id);
}

int TopologyEditor::deviceItemCount() const {
  return static_cast<int>(std::count_if(device_items_.begin(), device_items_.end(),
                                        [](const DeviceItem* item) { return item && item->isVisible(); }));
}

int TopologyEditor::nodeBoxCount() const {
  return static_cast<int>(node_items_.size());
}

int TopologyEditor::groupOutlineCount() const {
  return group_layer_ ? static_cast<int>(group_layer_->outlines().size()) : 0;
}

double TopologyEditor::linkLoad(LinkId link) const {
  return link.valid() && link.index() < link_load_.size() ? link_load_[link.index()] : 0.0;
}

}  // namespace meshscope::ui
