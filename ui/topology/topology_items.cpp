#include "ui/topology/topology_items.hpp"

#include <QDragEnterEvent>
#include <QGraphicsLineItem>
#include <QGraphicsScene>
#include <QHelpEvent>
#include <QMimeData>
#include <QPainter>
#include <QScrollBar>
#include <QStyleOptionGraphicsItem>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <map>

#include "ui/topology/topology_document.hpp"

namespace meshscope::ui {

QColor device_kind_colour(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
      return QColor(0x00, 0x9E, 0x73);  // bluish green
    case DeviceKind::nvswitch:
      return QColor(0xE6, 0x9F, 0x00);  // orange
    case DeviceKind::pcie_switch:
      return QColor(0x56, 0xB4, 0xE9);  // sky blue
    case DeviceKind::cpu:
      return QColor(0x00, 0x72, 0xB2);  // blue
    case DeviceKind::nic:
      return QColor(0xC8, 0xB8, 0x00);  // yellow, darkened to read on white
    case DeviceKind::leaf_switch:
      return QColor(0xD5, 0x5E, 0x00);  // vermillion
    case DeviceKind::spine_switch:
      return QColor(0xCC, 0x79, 0xA7);  // reddish purple
  }
  return Qt::gray;
}

QColor link_kind_colour(LinkKind kind) {
  switch (kind) {
    case LinkKind::nvlink:
      return QColor(0x00, 0x9E, 0x73);
    case LinkKind::pcie:
      return QColor(0x56, 0xB4, 0xE9);
    case LinkKind::xgmi:
      return QColor(0xE6, 0x9F, 0x00);
    case LinkKind::upi:
      return QColor(0x00, 0x72, 0xB2);
    case LinkKind::infiniband:
      return QColor(0xD5, 0x5E, 0x00);
    case LinkKind::roce:
      return QColor(0xCC, 0x79, 0xA7);
    case LinkKind::ethernet:
      return QColor(0x80, 0x80, 0x80);
    case LinkKind::efa:
      return QColor(0xB8, 0x9B, 0x00);
  }
  return Qt::gray;
}

QString device_kind_label(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::gpu:
      return QStringLiteral("GPU");
    case DeviceKind::nvswitch:
      return QStringLiteral("NVSwitch");
    case DeviceKind::pcie_switch:
      return QStringLiteral("PCIe switch");
    case DeviceKind::cpu:
      return QStringLiteral("CPU / NUMA");
    case DeviceKind::nic:
      return QStringLiteral("NIC");
    case DeviceKind::leaf_switch:
      return QStringLiteral("Leaf");
    case DeviceKind::spine_switch:
      return QStringLiteral("Spine");
  }
  return {};
}

QString link_kind_label(LinkKind kind) {
  switch (kind) {
    case LinkKind::nvlink:
      return QStringLiteral("NVLink");
    case LinkKind::pcie:
      return QStringLiteral("PCIe");
    case LinkKind::xgmi:
      return QStringLiteral("xGMI");
    case LinkKind::upi:
      return QStringLiteral("UPI");
    case LinkKind::infiniband:
      return QStringLiteral("InfiniBand");
    case LinkKind::roce:
      return QStringLiteral("RoCE");
    case LinkKind::ethernet:
      return QStringLiteral("Ethernet");
    case LinkKind::efa:
      return QStringLiteral("EFA");
  }
  return {};
}

namespace {
const QColor kProblemRed(0xC0, 0x1C, 0x28);
const QColor kSelectionBlue(0x1F, 0x4E, 0xB4);
}  // namespace

// ---- DeviceItem ----------------------------------------------------------------------------------

DeviceItem::DeviceItem(int32_t device, MovedCallback moved) : device_(device), moved_(std::move(moved)) {
  setFlags(ItemIsSelectable | ItemIsMovable | ItemSendsGeometryChanges);
  setZValue(2);
}

void DeviceItem::setDevice(const Device& d, const QString& problem) {
  kind_ = d.kind;
  // The id without its host prefix ("n3.gpu5" → "gpu5"): the node box already names the host.
  const size_t dot = d.id.find('.');
  label_ = QString::fromStdString(d.node >= 0 && dot != std::string::npos ? d.id.substr(dot + 1) : d.id);
  detail_ = d.kind == DeviceKind::gpu && !d.gpu_model.empty() ? QString::fromStdString(d.gpu_model)
                                                              : device_kind_label(d.kind);
  problem_ = problem;
  QString tip = QStringLiteral("<b>%1</b> — %2<br>%3")
                    .arg(QString::fromStdString(d.id).toHtmlEscaped(), device_kind_label(d.kind),
                         QString::fromStdString(d.name).toHtmlEscaped());
  if (d.numa >= 0) tip += QStringLiteral("<br>NUMA domain %1").arg(d.numa);
  if (d.local_index >= 0) tip += QStringLiteral(", local index %1").arg(d.local_index);
  if (!problem.isEmpty())
    tip += QStringLiteral("<br><span style='color:#c01c28'>%1</span>").arg(problem.toHtmlEscaped());
  setToolTip(tip);
  update();
}

void DeviceItem::setPositionQuietly(QPointF position) {
  quiet_ = true;
  setPos(position);
  quiet_ = false;
}

QRectF DeviceItem::boundingRect() const {
  return QRectF(-kDeviceWidth / 2 - 3, -kDeviceHeight / 2 - 3, kDeviceWidth + 6, kDeviceHeight + 6);
}

void DeviceItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const QRectF box(-kDeviceWidth / 2, -kDeviceHeight / 2, kDeviceWidth, kDeviceHeight);
  const QColor colour = device_kind_colour(kind_);
  // Opaque, so that links end at the box instead of running across its text.
  const QColor fill = QColor::fromRgbF(static_cast<float>(1 - 0.16 * (1 - colour.redF())),
                                       static_cast<float>(1 - 0.16 * (1 - colour.greenF())),
                                       static_cast<float>(1 - 0.16 * (1 - colour.blueF())));
  const bool selected = option->state & QStyle::State_Selected;
  QPen pen(flagged() ? kProblemRed : (selected ? kSelectionBlue : colour), flagged() || selected ? 2.5 : 1.5);
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(pen);
  painter->setBrush(flagged() ? QColor(0xF6, 0xD5, 0xD7) : fill);
  painter->drawRoundedRect(box, 6, 6);
  if (option->levelOfDetailFromTransform(painter->worldTransform()) < 0.35) return;  // too small to read
  QFont font = painter->font();
  font.setPixelSize(12);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(QColor(0x20, 0x20, 0x20));
  const QRectF top(box.left() + 2, box.top() + 3, box.width() - 4, box.height() / 2 - 2);
  painter->drawText(top, Qt::AlignCenter, QFontMetrics(font).elidedText(label_, Qt::ElideMiddle, int(top.width())));
  font.setPixelSize(10);
  font.setBold(false);
  painter->setFont(font);
  painter->setPen(QColor(0x50, 0x50, 0x50));
  const QRectF bottom(box.left() + 2, box.center().y(), box.width() - 4, box.height() / 2 - 3);
  painter->drawText(bottom, Qt::AlignCenter,
                    QFontMetrics(font).elidedText(detail_, Qt::ElideRight, int(bottom.width())));
}

QVariant DeviceItem::itemChange(GraphicsItemChange change, const QVariant& value) {
  if (change == ItemPositionHasChanged && !quiet_ && moved_) moved_(device_, value.toPointF());
  return QGraphicsItem::itemChange(change, value);
}

// ---- NodeItem ---------------------------------------------------------------------------------------

NodeItem::NodeItem(int32_t node) : node_(node) {
  setZValue(0);
}

void NodeItem::setRect(const QRectF& rect) {
  if (rect == rect_) return;
  prepareGeometryChange();
  rect_ = rect;
}

void NodeItem::setText(const QString& title, const QString& summary) {
  title_ = title;
  summary_ = summary;
  setToolTip(problem_.isEmpty() ? summary_ : summary_ + "\n" + problem_);
  update();
}

void NodeItem::setCollapsed(bool collapsed) {
  if (collapsed == collapsed_) return;
  collapsed_ = collapsed;
  setFlag(ItemIsSelectable, collapsed);  // a collapsed node is picked as a whole
  update();
}

void NodeItem::setProblem(const QString& problem) {
  problem_ = problem;
  setToolTip(problem_.isEmpty() ? summary_ : summary_ + "\n" + problem_);
  update();
}

QRectF NodeItem::boundingRect() const {
  return rect_.adjusted(-2, -2, 2, 2);
}

void NodeItem::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  const bool flagged = !problem_.isEmpty();
  const bool selected = option->state & QStyle::State_Selected;
  if (collapsed_) {
    painter->setPen(QPen(flagged ? kProblemRed : (selected ? kSelectionBlue : QColor(0x60, 0x60, 0x60)),
                         flagged || selected ? 3 : 1.5, Qt::SolidLine));
    painter->setBrush(flagged ? QColor(0xF6, 0xD5, 0xD7) : QColor(0xE4, 0xEC, 0xF2));
    painter->drawRect(rect_);
    if (rect_.height() * lod < 14) return;  // the box alone says enough at this size
    QFont font = painter->font();
    font.setPixelSize(std::max(8, static_cast<int>(std::min(rect_.height() * 0.22, rect_.width() * 0.07))));
    painter->setFont(font);
    painter->setPen(QColor(0x20, 0x20, 0x20));
    painter->drawText(rect_.adjusted(6, 4, -6, -4), Qt::AlignCenter | Qt::TextWordWrap, summary_);
    return;
  }
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setPen(QPen(flagged ? kProblemRed : QColor(0x90, 0x90, 0x90), flagged ? 2 : 1));
  painter->setBrush(QColor(0xF7, 0xF7, 0xF7));
  painter->drawRoundedRect(rect_, 8, 8);
  if (lod < 0.3) return;
  QFont font = painter->font();
  font.setPixelSize(13);
  font.setBold(true);
  painter->setFont(font);
  painter->setPen(QColor(0x30, 0x30, 0x30));
  painter->drawText(QRectF(rect_.left() + 10, rect_.top() + 3, rect_.width() - 20, kNodeTitle), Qt::AlignVCenter,
                    summary_);
}

// ---- LinkLayer ------------------------------------------------------------------------------------

LinkLayer::LinkLayer() {
  setZValue(1);
  setAcceptedMouseButtons(Qt::NoButton);
}

void LinkLayer::setLines(std::vector<QLineF> lines) {
  prepareGeometryChange();
  lines_ = std::move(lines);
  QRectF bounds;
  double left = 1e300, top = 1e300, right = -1e300, bottom = -1e300;
  for (const QLineF& l : lines_) {
    if (l.isNull()) continue;
    left = std::min({left, l.x1(), l.x2()});
    right = std::max({right, l.x1(), l.x2()});
    top = std::min({top, l.y1(), l.y2()});
    bottom = std::max({bottom, l.y1(), l.y2()});
  }
  if (left <= right) bounds = QRectF(QPointF(left, top), QPointF(right, bottom)).adjusted(-8, -8, 8, 8);
  bounds_ = bounds;
  if (pen_of_link_.size() != lines_.size()) pen_of_link_.assign(lines_.size(), 0);
  update();
}

void LinkLayer::setPens(std::vector<QPen> pens, std::vector<uint16_t> pen_of_link) {
  pens_ = pens.empty() ? std::vector<QPen>{QPen()} : std::move(pens);
  pen_of_link_ = std::move(pen_of_link);
  pen_of_link_.resize(lines_.size(), 0);
  update();
}

int32_t LinkLayer::linkAt(QPointF p, double tolerance) const {
  int32_t best = -1;
  double best_distance = tolerance;
  for (size_t i = 0; i < lines_.size(); ++i) {
    const QLineF& l = lines_[i];
    if (l.isNull()) continue;
    const QPointF d = l.p2() - l.p1();
    const double length2 = d.x() * d.x() + d.y() * d.y();
    double t = length2 > 0 ? QPointF::dotProduct(p - l.p1(), d) / length2 : 0;
    t = std::clamp(t, 0.0, 1.0);
    const QPointF nearest = l.p1() + t * d;
    const double distance = std::hypot(p.x() - nearest.x(), p.y() - nearest.y());
    if (distance <= best_distance) {
      best_distance = distance;
      best = static_cast<int32_t>(i);
    }
  }
  return best;
}

void LinkLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const QRectF exposed = option->exposedRect;
  // Bucket the visible lines by pen: a handful of drawLines calls however many links there are.
  std::vector<std::vector<QLineF>> buckets(pens_.size());
  for (size_t i = 0; i < lines_.size(); ++i) {
    const QLineF& l = lines_[i];
    if (l.isNull()) continue;
    const QRectF box = QRectF(l.p1(), l.p2()).normalized().adjusted(-4, -4, 4, 4);
    if (!exposed.intersects(box)) continue;
    buckets[pen_of_link_[i]].push_back(l);
  }
  const bool many = lines_.size() > 20000;
  painter->setRenderHint(QPainter::Antialiasing, !many);
  for (size_t p = 0; p < pens_.size(); ++p) {
    if (buckets[p].empty()) continue;
    painter->setPen(pens_[p]);
    painter->drawLines(buckets[p].data(), static_cast<int>(buckets[p].size()));
  }
}

// ---- GroupLayer -----------------------------------------------------------------------------------

GroupLayer::GroupLayer() {
  setZValue(3);
  setAcceptedMouseButtons(Qt::NoButton);
}

void GroupLayer::setOutlines(std::vector<Outline> outlines) {
  prepareGeometryChange();
  outlines_ = std::move(outlines);
  QRectF bounds;
  for (const Outline& o : outlines_) bounds |= o.rect;
  bounds_ = bounds.adjusted(-20, -20, 20, 20);
  update();
}

void GroupLayer::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget*) {
  const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
  painter->setRenderHint(QPainter::Antialiasing);
  painter->setBrush(Qt::NoBrush);
  QFont font = painter->font();
  font.setPixelSize(11);
  font.setBold(true);
  painter->setFont(font);
  for (const Outline& o : outlines_) {
    if (!option->exposedRect.intersects(o.rect.adjusted(-4, -16, 4, 4))) continue;
    painter->setPen(QPen(o.colour, 2.5, Qt::DashLine));
    painter->drawRoundedRect(o.rect, 10, 10);
    if (lod > 0.3 && !o.label.isEmpty()) {
      painter->setPen(o.colour.darker(130));
      painter->drawText(QRectF(o.rect.left() + 4, o.rect.bottom() - 15, o.rect.width() - 8, 14),
                        Qt::AlignLeft | Qt::AlignVCenter, o.label);
    }
  }
}

// ---- TopologyView -----------------------------------------------------------------------------------

TopologyView::TopologyView(QGraphicsScene* scene, QWidget* parent) : QGraphicsView(scene, parent) {
  setDragMode(RubberBandDrag);
  setRubberBandSelectionMode(Qt::IntersectsItemShape);
  setTransformationAnchor(AnchorUnderMouse);
  setViewportUpdateMode(SmartViewportUpdate);
  setAcceptDrops(true);
  setRenderHint(QPainter::Antialiasing);
  setBackgroundBrush(Qt::white);
}

void TopologyView::setTool(Tool tool, DeviceKind place_kind) {
  tool_ = tool;
  place_kind_ = place_kind;
  viewport()->setCursor(tool == Tool::select ? Qt::ArrowCursor : Qt::CrossCursor);
}

double TopologyView::zoom() const {
  return transform().m11();
}

void TopologyView::setZoom(double zoom) {
  const double z = std::clamp(zoom, 0.002, 8.0);
  setTransform(QTransform::fromScale(z, z));
  emit viewChanged();
}

void TopologyView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double target = std::clamp(zoom() * std::pow(1.2, steps), 0.002, 8.0);
  scale(target / zoom(), target / zoom());
  emit viewChanged();
  event->accept();
}

DeviceItem* TopologyView::deviceAt(QPoint view_position) const {
  for (QGraphicsItem* item : items(view_position))
    if (item->type() == kDeviceItemType && item->isVisible()) return static_cast<DeviceItem*>(item);
  return nullptr;
}

void TopologyView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::MiddleButton) {
    panning_ = true;
    pan_last_ = event->pos();
    viewport()->setCursor(Qt::ClosedHandCursor);
    event->accept();
    return;
  }
  if (event->button() != Qt::LeftButton) return QGraphicsView::mousePressEvent(event);
  DeviceItem* device = deviceAt(event->pos());
  const QPointF scene_position = mapToScene(event->pos());
  if (device && (tool_ == Tool::link || (event->modifiers() & Qt::ShiftModifier))) {
    link_from_ = device->device();
    rubber_link_ = scene()->addLine(QLineF(device->pos(), scene_position), QPen(kSelectionBlue, 2, Qt::DashLine));
    rubber_link_->setZValue(10);
    event->accept();
    return;
  }
  if (!device && tool_ == Tool::place) {
    emit placeRequested(place_kind_, scene_position);
    event->accept();
    return;
  }
  if (!device && links_) {
    bool over_item = false;
    for (QGraphicsItem* item : items(event->pos()))
      if (item->type() == kNodeItemType && static_cast<NodeItem*>(item)->collapsed()) over_item = true;
    const int32_t link = over_item ? -1 : links_->linkAt(scene_position, 5 / std::max(zoom(), 1e-6));
    if (link >= 0) {
      emit linkClicked(link, event->modifiers() & Qt::ControlModifier);
      event->accept();
      return;
    }
    if (!(event->modifiers() & Qt::ControlModifier)) emit emptyClicked();
  }
  QGraphicsView::mousePressEvent(event);
  if (device) {
    dragging_ = true;
    emit dragStarted();
  }
}

void TopologyView::mouseMoveEvent(QMouseEvent* event) {
  if (panning_) {
    const QPoint delta = event->pos() - pan_last_;
    pan_last_ = event->pos();
    horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
    verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
    event->accept();
    return;
  }
  if (rubber_link_) {
    QLineF line = rubber_link_->line();
    line.setP2(mapToScene(event->pos()));
    rubber_link_->setLine(line);
    event->accept();
    return;
  }
  QGraphicsView::mouseMoveEvent(event);
}

void TopologyView::mouseReleaseEvent(QMouseEvent* event) {
  if (panning_ && event->button() == Qt::MiddleButton) {
    panning_ = false;
    setTool(tool_, place_kind_);
    event->accept();
    return;
  }
  if (rubber_link_) {
    delete rubber_link_;
    rubber_link_ = nullptr;
    DeviceItem* target = deviceAt(event->pos());
    const int32_t from = link_from_;
    link_from_ = -1;
    if (target && target->device() != from) emit linkRequested(from, target->device());
    event->accept();
    return;
  }
  QGraphicsView::mouseReleaseEvent(event);
  if (dragging_) {
    dragging_ = false;
    emit dragFinished();
  }
}

void TopologyView::scrollContentsBy(int dx, int dy) {
  QGraphicsView::scrollContentsBy(dx, dy);
  emit viewChanged();
}

void TopologyView::dragEnterEvent(QDragEnterEvent* event) {
  if (event->mimeData()->hasFormat(kDeviceKindMime))
    event->acceptProposedAction();
  else
    QGraphicsView::dragEnterEvent(event);
}

void TopologyView::dragMoveEvent(QDragMoveEvent* event) {
  if (event->mimeData()->hasFormat(kDeviceKindMime))
    event->acceptProposedAction();
  else
    QGraphicsView::dragMoveEvent(event);
}

void TopologyView::dropEvent(QDropEvent* event) {
  if (!event->mimeData()->hasFormat(kDeviceKindMime)) return QGraphicsView::dropEvent(event);
  DeviceKind kind = DeviceKind::gpu;
  if (!parse_device_kind(event->mimeData()->data(kDeviceKindMime).toStdString(), kind)) return;
  emit placeRequested(kind, mapToScene(event->position().toPoint()));
  event->acceptProposedAction();
}

bool TopologyView::viewportEvent(QEvent* event) {
  if (event->type() == QEvent::ToolTip && links_ && link_tooltip_) {
    auto* help = static_cast<QHelpEvent*>(event);
    bool over_item = false;
    for (QGraphicsItem* item : items(help->pos()))
      if ((item->type() == kDeviceItemType && item->isVisible()) ||
          (item->type() == kNodeItemType && static_cast<NodeItem*>(item)->collapsed()))
        over_item = true;
    if (!over_item) {
      const int32_t link = links_->linkAt(mapToScene(help->pos()), 5 / std::max(zoom(), 1e-6));
      if (link >= 0) {
        QToolTip::showText(help->globalPos(), link_tooltip_(link), viewport());
        return true;
      }
    }
  }
  return QGraphicsView::viewportEvent(event);
}

}  // namespace meshscope::ui
