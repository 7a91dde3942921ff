#pragma once
// Helpers the topology editor's source files share (topology_editor*.cpp); not part of its API.
#include <QColor>
#include <QFontMetrics>
#include <QPainter>
#include <QString>
#include <QWidget>

#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "core/topology/cluster.hpp"
#include "core/topology/placement.hpp"
#include "ui/kit/formatting.hpp"
#include "ui/topology/topology_items.hpp"

namespace meshscope::ui::editor_detail {

inline constexpr int kLoadLevels = 8;

// Sequential ramp for loads (ColorBrewer YlOrRd, 5 classes), light = little, dark red = most.
inline QColor load_colour(double t) {
  static const std::array<QColor, 5> stops{QColor(0xFE, 0xD9, 0x76), QColor(0xFE, 0xB2, 0x4C), QColor(0xFD, 0x8D, 0x3C),
                                           QColor(0xF0, 0x3B, 0x20), QColor(0xBD, 0x00, 0x26)};
  t = std::clamp(t, 0.0, 1.0) * (stops.size() - 1);
  const auto i = std::min(static_cast<size_t>(t), stops.size() - 2);
  const double f = t - static_cast<double>(i);
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * f),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * f),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * f));
}

inline double load_width(int level) {
  return 1.5 + 5.0 * (level + 1) / kLoadLevels;
}

inline const QColor kIdleGrey(0xC8, 0xC8, 0xC8);

inline constexpr std::array kPaletteKinds{DeviceKind::gpu,         DeviceKind::nvswitch, DeviceKind::pcie_switch,
                                          DeviceKind::cpu,         DeviceKind::nic,      DeviceKind::leaf_switch,
                                          DeviceKind::spine_switch};
inline constexpr std::array kLinkKinds{LinkKind::nvlink,     LinkKind::pcie, LinkKind::xgmi,     LinkKind::upi,
                                       LinkKind::infiniband, LinkKind::roce, LinkKind::ethernet, LinkKind::efa};
inline const std::array<QColor, 8> kGroupColours{
    QColor(0xE6, 0x9F, 0x00), QColor(0x56, 0xB4, 0xE9), QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
    QColor(0x00, 0x72, 0xB2), QColor(0xD5, 0x5E, 0x00), QColor(0x99, 0x99, 0x99), QColor(0x33, 0x33, 0x33)};

inline QString axis_label(std::optional<MeshAxis> axis) {
  if (!axis) return QStringLiteral("all axes");
  switch (*axis) {
    case MeshAxis::dp:
      return QStringLiteral("DP / FSDP");
    case MeshAxis::tp:
      return QStringLiteral("TP");
    case MeshAxis::pp:
      return QStringLiteral("PP");
    case MeshAxis::cp:
      return QStringLiteral("CP");
    case MeshAxis::ep:
      return QStringLiteral("EP");
    default:
      return QString::fromUtf8(mesh_axis_name(*axis).data()).toUpper();
  }
}

inline QString gbytes_text(double bytes_per_s) {
  return QStringLiteral("%1 GB/s").arg(bytes_per_s / 1e9, 0, 'g', 4);
}

inline QString link_spec_text(const Link& l) {
  QString text = link_kind_label(l.kind);
  if (l.kind == LinkKind::nvlink && l.nvlink_count > 0)
    text += QStringLiteral(" %1 × %2").arg(l.nvlink_generation).arg(l.nvlink_count);
  else if (l.kind == LinkKind::pcie && l.pcie_lanes > 0)
    text += QStringLiteral(" Gen%1 x%2").arg(l.pcie_generation).arg(l.pcie_lanes);
  else if (is_network_link(l.kind) && l.gbits_per_s > 0)
    text += QStringLiteral(" %1 Gb/s").arg(l.gbits_per_s, 0, 'g', 5);
  return text;
}

inline std::string kind_stem(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
      return "gpu";
    case DeviceKind::nvswitch:
      return "nvsw";
    case DeviceKind::pcie_switch:
      return "pcie";
    case DeviceKind::cpu:
      return "cpu";
    case DeviceKind::nic:
      return "nic";
    case DeviceKind::leaf_switch:
      return "leaf";
    case DeviceKind::spine_switch:
      return "spine";
  }
  return "device";
}

}  // namespace meshscope::ui::editor_detail

namespace meshscope::ui {

// The scale of the communication map: idle, then the load levels from 0 to the largest load.
class LoadLegend : public QWidget {
 public:
  explicit LoadLegend(QWidget* parent) : QWidget(parent) { setMinimumHeight(58); }
  void setScale(const QString& title, const QString& low, const QString& high) {
    title_ = title;
    low_ = low;
    high_ = high;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    if (title_.isEmpty()) return;
    QPainter p(this);
    p.setRenderHint(QPainter::Antialiasing);
    const QFontMetrics metrics(font());
    p.drawText(QRectF(0, 0, width(), metrics.height()), Qt::AlignLeft, title_);
    const double top = metrics.height() + 4;
    const double idle_width = 40;
    p.setPen(QPen(editor_detail::kIdleGrey, 2));
    p.drawLine(QPointF(2, top + 8), QPointF(idle_width - 6, top + 8));
    const double left = idle_width, span = width() - left - 4;
    for (int level = 0; level < editor_detail::kLoadLevels; ++level) {
      const double x0 = left + span * level / editor_detail::kLoadLevels,
                   x1 = left + span * (level + 1) / editor_detail::kLoadLevels;
      p.setPen(QPen(editor_detail::load_colour((level + 1.0) / editor_detail::kLoadLevels),
                    editor_detail::load_width(level), Qt::SolidLine, Qt::FlatCap));
      p.drawLine(QPointF(x0, top + 8), QPointF(x1, top + 8));
    }
    p.setPen(palette().color(QPalette::Text));
    const QRectF labels(0, top + 16, width(), metrics.height());
    p.drawText(labels, Qt::AlignLeft, QStringLiteral("idle"));
    p.drawText(labels.adjusted(left, 0, 0, 0), Qt::AlignLeft, low_);
    p.drawText(labels.adjusted(0, 0, -4, 0), Qt::AlignRight, high_);
  }

 private:
  QString title_, low_, high_;
};

}  // namespace meshscope::ui
