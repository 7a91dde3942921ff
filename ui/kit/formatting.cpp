#include "ui/kit/formatting.hpp"

#include <QLocale>
#include <QStringList>

#include <cmath>

namespace meshscope::ui {

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
constexpr QChar kEnDash{0x2013};
const QString kAxisSeparator = QStringLiteral(" \u00b7 ");

QString number(int64_t value) {
  return QString::number(static_cast<qlonglong>(value));
}

}  // namespace

QString gib_text(double bytes) {
  return QStringLiteral("%1 GiB").arg(bytes / kBytesPerGib, 0, 'f', 2);
}

QString exact_bytes_text(double bytes) {
  // English grouping whatever the system locale, so tooltips and tests read the same everywhere.
  return QStringLiteral("%1 bytes").arg(QLocale(QLocale::English).toString(bytes, 'f', 0));
}

QString qstring(std::string_view text) {
  return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

QString category_label(MemoryCategory category) {
  const std::string_view name = category_name(category);
  QStringList words = QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size())).split(u'_');
  for (QString& word : words) {
    if (word == u"kv") word = QStringLiteral("KV");
  }
  QString label = words.join(u' ');
  if (!label.isEmpty()) label[0] = label[0].toUpper();
  return label;
}

QString stage_ranges_text(const std::vector<int64_t>& stages) {
  QStringList runs;
  for (size_t begin = 0; begin < stages.size();) {
    size_t end = begin;
    while (end + 1 < stages.size() && stages[end + 1] == stages[end] + 1) ++end;
    if (end == begin) {
      runs << number(stages[begin]);
    } else {
      runs << number(stages[begin]) + kEnDash + number(stages[end]);
    }
    begin = end + 1;
  }
  return runs.join(QStringLiteral(", "));
}

QString rank_label(const RankMemory& rank) {
  return QStringLiteral("%1 (%2)").arg(QString::fromStdString(rank.role), stage_ranges_text(rank.pp_stages));
}

QString layout_summary(const Layout& layout) {
  QStringList axes;
  axes << QStringLiteral("TP %1").arg(number(layout.tp));
  QString pipeline = QStringLiteral("PP %1").arg(number(layout.pp));
  if (layout.vpp > 1) pipeline += QStringLiteral(" (v %1)").arg(number(layout.vpp));
  axes << pipeline;
  QString data = QStringLiteral("DP %1").arg(number(layout.dp));
  if (layout.fsdp > 0) data += QStringLiteral(" (FSDP %1)").arg(number(layout.fsdp));
  axes << data;
  if (layout.cp > 1) axes << QStringLiteral("CP %1").arg(number(layout.cp));
  if (layout.ep > 1) axes << QStringLiteral("EP %1").arg(number(layout.ep));
  if (layout.etp > 1) axes << QStringLiteral("ETP %1").arg(number(layout.etp));
  if (layout.sp) axes << QStringLiteral("SP");
  return axes.join(kAxisSeparator);
}

QString binary_bytes_text(double bytes) {
  const double magnitude = std::abs(bytes);
  if (magnitude < 1024) return QStringLiteral("%1 B").arg(bytes, 0, 'f', 0);
  if (magnitude < 1024.0 * 1024) return QStringLiteral("%1 KiB").arg(bytes / 1024, 0, 'f', 1);
  if (magnitude < 1024.0 * 1024 * 1024) return QStringLiteral("%1 MiB").arg(bytes / (1024.0 * 1024), 0, 'f', 1);
  if (magnitude < 1024.0 * 1024 * 1024 * 1024)
    return QStringLiteral("%1 GiB").arg(bytes / (1024.0 * 1024 * 1024), 0, 'f', 2);
  return QStringLiteral("%1 TiB").arg(bytes / (1024.0 * 1024 * 1024 * 1024), 0, 'f', 2);
}

QString gap_ids_text(const std::vector<std::string>& ids) {
  QStringList parts;
  for (const std::string& id : ids) parts << QString::fromStdString(id);
  return parts.join(QStringLiteral(", "));
}

QString gap_ids_text(const std::vector<KnownGap>& gaps) {
  std::vector<std::string> ids;
  for (const KnownGap& gap : gaps) ids.push_back(gap.id);
  return gap_ids_text(ids);
}

QString duration_text(double seconds) {
  const double magnitude = std::abs(seconds);
  if (magnitude == 0) return QStringLiteral("0");
  if (magnitude < 1e-3) return QStringLiteral("%1 \u00b5s").arg(seconds * 1e6, 0, 'f', 0);
  if (magnitude < 1.0) return QStringLiteral("%1 ms").arg(seconds * 1e3, 0, 'f', magnitude < 0.1 ? 1 : 0);
  return QStringLiteral("%1 s").arg(seconds, 0, 'f', magnitude < 10 ? 2 : 1);
}

}  // namespace meshscope::ui
