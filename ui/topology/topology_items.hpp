#pragma once
// The graphics of the topology editor: one item per device (created only for nodes drawn open),
// one container per node (drawn as a single box "node017 · 8 × H100" when zoomed out), all links
// painted by one layer item in a few batched drawLines calls (a 2,048-node cluster has ~90,000),
// the process groups of a mesh axis as outlines, and the view that zooms, pans, takes drops from
// the palette and draws new links.
#include <QColor>
#include <QGraphicsItem>
#include <QGraphicsView>
#include <QLineF>
#include <QPen>
#include <QRectF>
#include <QString>

#include <cstdint>
#include <functional>
#include <vector>

#include "core/topology/cluster.hpp"

class QGraphicsLineItem;

namespace meshscope::ui {

// Okabe–Ito colours by kind (distinct for the common forms of colour blindness).
[[nodiscard]] QColor device_kind_colour(DeviceKind kind);
[[nodiscard]] QColor link_kind_colour(LinkKind kind);
[[nodiscard]] QString device_kind_label(DeviceKind kind);  // "GPU", "NVSwitch", "PCIe switch", ...
[[nodiscard]] QString link_kind_label(LinkKind kind);      // "NVLink", "PCIe", "InfiniBand", ...

inline constexpr int kDeviceItemType = QGraphicsItem::UserType + 1;
inline constexpr int kNodeItemType = QGraphicsItem::UserType + 2;

class DeviceItem : public QGraphicsItem {
 public:
  using MovedCallback = std::function<void(int32_t device, QPointF position)>;
  DeviceItem(int32_t device, MovedCallback moved);
  [[nodiscard]] int type() const override { return kDeviceItemType; }
  [[nodiscard]] int32_t device() const { return device_; }
  void setDevice(const Device& device, const QString& problem);
  [[nodiscard]] bool flagged() const { return !problem_.isEmpty(); }
  // Moves the item without reporting it back (the document moved it).
  void setPositionQuietly(QPointF position);
  [[nodiscard]] QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 protected:
  QVariant itemChange(GraphicsItemChange change, const QVariant& value) override;

 private:
  int32_t device_;
  MovedCallback moved_;
  bool quiet_ = false;
  DeviceKind kind_ = DeviceKind::gpu;
  QString label_, detail_, problem_;
};

class NodeItem : public QGraphicsItem {
 public:
  explicit NodeItem(int32_t node);
  [[nodiscard]] int type() const override { return kNodeItemType; }
  [[nodiscard]] int32_t node() const { return node_; }
  void setRect(const QRectF& rect);
  [[nodiscard]] QRectF rect() const { return rect_; }
  // `title`: the host name; `summary`: "node017 · 8 × H100", shown when collapsed.
  void setText(const QString& title, const QString& summary);
  void setCollapsed(bool collapsed);
  [[nodiscard]] bool collapsed() const { return collapsed_; }
  void setProblem(const QString& problem);
  [[nodiscard]] QRectF boundingRect() const override;
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  int32_t node_;
  QRectF rect_;
  QString title_, summary_, problem_;
  bool collapsed_ = false;
};

// Every link, painted in batches by pen.
class LinkLayer : public QGraphicsItem {
 public:
  LinkLayer();
  // One line per link (a null line: not drawn) and the index of its pen.
  void setLines(std::vector<QLineF> lines);
  void setPens(std::vector<QPen> pens, std::vector<uint16_t> pen_of_link);
  [[nodiscard]] const std::vector<QLineF>& lines() const { return lines_; }
  [[nodiscard]] const QPen& penOf(size_t link) const { return pens_[pen_of_link_[link]]; }
  // The link nearest to `point` within `tolerance` (scene units), or -1.
  [[nodiscard]] int32_t linkAt(QPointF point, double tolerance) const;
  [[nodiscard]] QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  std::vector<QLineF> lines_;
  std::vector<QPen> pens_{QPen()};
  std::vector<uint16_t> pen_of_link_;
  QRectF bounds_;
};

// Outlines of the process groups of one mesh axis.
class GroupLayer : public QGraphicsItem {
 public:
  struct Outline {
    QRectF rect;
    QColor colour;
    QString label;
  };
  GroupLayer();
  void setOutlines(std::vector<Outline> outlines);
  [[nodiscard]] const std::vector<Outline>& outlines() const { return outlines_; }
  [[nodiscard]] QRectF boundingRect() const override { return bounds_; }
  void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

 private:
  std::vector<Outline> outlines_;
  QRectF bounds_;
};

inline constexpr char kDeviceKindMime[] = "application/x-meshscope-device-kind";

class TopologyView : public QGraphicsView {
  Q_OBJECT

 public:
  enum class Tool { select, link, place };
  explicit TopologyView(QGraphicsScene* scene, QWidget* parent = nullptr);
  void setTool(Tool tool, DeviceKind place_kind = DeviceKind::gpu);
  [[nodiscard]] Tool tool() const { return tool_; }
  void setLinkLayer(LinkLayer* layer) { links_ = layer; }
  void setLinkToolTip(std::function<QString(int32_t)> tooltip) { link_tooltip_ = std::move(tooltip); }
  [[nodiscard]] double zoom() const;
  void setZoom(double zoom);

 signals:
  void viewChanged();  // zoom or scroll
  void placeRequested(meshscope::DeviceKind kind, QPointF scene_position);
  void linkRequested(int32_t from_device, int32_t to_device);
  void linkClicked(int32_t link, bool add_to_selection);
  void emptyClicked();
  void dragStarted();
  void dragFinished();

 protected:
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void scrollContentsBy(int dx, int dy) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dragMoveEvent(QDragMoveEvent* event) override;
  void dropEvent(QDropEvent* event) override;
  bool viewportEvent(QEvent* event) override;

 private:
  [[nodiscard]] DeviceItem* deviceAt(QPoint view_position) const;

  Tool tool_ = Tool::select;
  DeviceKind place_kind_ = DeviceKind::gpu;
  LinkLayer* links_ = nullptr;
  std::function<QString(int32_t)> link_tooltip_;
  QGraphicsLineItem* rubber_link_ = nullptr;
  int32_t link_from_ = -1;
  bool panning_ = false;
  bool dragging_ = false;
  QPoint pan_last_;
};

}  // namespace meshscope::ui
