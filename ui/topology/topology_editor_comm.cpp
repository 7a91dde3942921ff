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

// The topology editor's communication map: link loads per mesh axis and the groups outlined.
namespace meshscope::ui {

using namespace editor_detail;

// ---- Communication map -------------------------------------------------------------------------

void TopologyEditor::setCommPlan(const CommPlan& plan, const Layout& layout, const Placement& placement) {
  const Router router(cluster());
  setLinkLoads(link_traffic_per_axis(plan, layout, cluster(), router, placement), placement);
}

void TopologyEditor::setLinkLoads(std::vector<AxisLinkTraffic> loads, Placement placement) {
  loads_ = std::move(loads);
  placement_ = std::move(placement);
  computeLoads();
  restyleLinks();
  updateGroups();
}

void TopologyEditor::clearCommMap() {
  setLinkLoads({}, Placement{});
}

void TopologyEditor::setCommAxis(std::optional<MeshAxis> axis) {
  axis_ = axis;
  const int wanted = axis ? static_cast<int>(*axis) : -1;
  if (axis_combo_->currentData().toInt() != wanted) {
    const QSignalBlocker block(axis_combo_);
    axis_combo_->setCurrentIndex(std::max(0, axis_combo_->findData(wanted)));
  }
  computeLoads();
  restyleLinks();
  updateGroups();
}

void TopologyEditor::setLoadMetric(LoadMetric metric) {
  metric_ = metric;
  const QSignalBlocker block(metric_combo_);
  metric_combo_->setCurrentIndex(std::max(0, metric_combo_->findData(static_cast<int>(metric))));
  computeLoads();
  restyleLinks();
}

const AxisLinkTraffic* TopologyEditor::shownLoads(AxisLinkTraffic& summed) const {
  if (axis_) {
    for (const AxisLinkTraffic& a : loads_)
      if (a.axis == *axis_) return &a;
    return nullptr;
  }
  std::vector<LinkTraffic> by_link(cluster().links.size());
  for (const AxisLinkTraffic& a : loads_)
    for (const LinkTraffic& t : a.links) {
      if (t.link.index() >= by_link.size()) continue;
      LinkTraffic& s = by_link[t.link.index()];
      s.link = t.link;
      for (int d = 0; d < 2; ++d) {
        s.bytes_per_step[d] += t.bytes_per_step[d];
        s.flows[d] = std::max(s.flows[d], t.flows[d]);
      }
    }
  summed.links.clear();
  for (const LinkTraffic& t : by_link)
    if (t.link.valid()) summed.links.push_back(t);
  return &summed;
}

void TopologyEditor::computeLoads() {
  const Cluster& c = cluster();
  link_load_.assign(c.links.size(), 0.0);
  max_load_ = 0;
  if (loads_.empty()) {
    legend_->setScale({}, {}, {});
    comm_summary_->setText(QStringLiteral("No plan shown. The main window sends the layout's communication here."));
    return;
  }
  AxisLinkTraffic summed;
  const AxisLinkTraffic* shown = shownLoads(summed);
  int32_t busiest = -1;
  if (shown)
    for (const LinkTraffic& t : shown->links) {
      if (t.link.index() >= c.links.size()) continue;
      const double bytes = std::max(t.bytes_per_step[0], t.bytes_per_step[1]);
      const double bandwidth = c.link(t.link).bandwidth_bytes_per_s;
      const double value = metric_ == LoadMetric::bytes_per_step ? bytes : (bandwidth > 0 ? bytes / bandwidth : 0.0);
      link_load_[t.link.index()] = value;
      if (value > max_load_) {
        max_load_ = value;
        busiest = t.link.value;
      }
    }
  auto value_text = [&](double v) {
    return metric_ == LoadMetric::bytes_per_step ? binary_bytes_text(v) : duration_text(v);
  };
  const QString what = metric_ == LoadMetric::bytes_per_step ? QStringLiteral("Bytes per step on a link")
                                                             : QStringLiteral("Link busy time per step");
  legend_->setScale(QStringLiteral("%1 (%2)").arg(what, axis_label(axis_)), QStringLiteral("0"),
                    max_load_ > 0 ? value_text(max_load_) : QStringLiteral("—"));
  if (busiest < 0) {
    comm_summary_->setText(QStringLiteral("No traffic on %1 in this plan.").arg(axis_label(axis_)));
    return;
  }
  const Link& l = c.link(LinkId{busiest});
  QString text = QStringLiteral("Busiest link: <b>%1</b> (%2), %3 per step in its busier direction")
                     .arg(QString::fromStdString(l.id).toHtmlEscaped(), link_spec_text(l),
                          metric_ == LoadMetric::bytes_per_step ? value_text(max_load_)
                                                                : duration_text(max_load_) + QStringLiteral(" busy"));
  if (axis_)
    if (const AxisGroups* g = placement_.axis(*axis_))
      text += QStringLiteral("<br>%1 groups of %2 ranks, outlined").arg(g->groups.size()).arg(g->size);
  comm_summary_->setText(text);
}

void TopologyEditor::updateGroups() {
  if (!group_layer_) return;
  std::vector<GroupLayer::Outline> outlines;
  const AxisGroups* groups = axis_ && !loads_.empty() ? placement_.axis(*axis_) : nullptr;
  const Cluster& c = cluster();
  if (groups && !collapsed_) {
    const auto& positions = document_->positions();
    for (size_t g = 0; g < groups->groups.size() && outlines.size() < 20000; ++g) {
      std::map<int32_t, QRectF> by_node;
      for (const int32_t rank : groups->groups[g]) {
        if (rank < 0 || static_cast<size_t>(rank) >= placement_.rank_to_gpu.size()) continue;
        const DeviceId gpu = placement_.rank_to_gpu[static_cast<size_t>(rank)];
        if (!gpu.valid() || gpu.index() >= c.devices.size()) continue;
        const QPointF p = positions[gpu.index()];
        const QRectF box(p.x() - kDeviceWidth / 2 - 5, p.y() - kDeviceHeight / 2 - 5, kDeviceWidth + 10,
                         kDeviceHeight + 20);
        QRectF& r = by_node[c.device(gpu).node];
        r = r.isNull() ? box : r.united(box);
      }
      bool first = true;
      for (const auto& [node, rect] : by_node) {
        outlines.push_back(
            {rect, kGroupColours[g % kGroupColours.size()], first ? QStringLiteral("g%1").arg(g) : QString()});
        first = false;
      }
    }
  }
  group_layer_->setOutlines(std::move(outlines));
}

}  // namespace meshscope::ui
