#include "ui/window/recovery.hpp"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <algorithm>
#include <cerrno>
#include <csignal>

#include "core/model/model_io.hpp"

namespace meshscope::ui {

namespace {

constexpr const char* kRecoveryFormat = "meshscope-recovery";
const QString kPrefix = QStringLiteral("recovery-");
const QString kSuffix = QStringLiteral(".json");

// A process is running when signal 0 reaches it (EPERM: it exists, owned by someone else).
bool process_running(qint64 pid) {
  if (pid <= 0) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

}  // namespace

bool write_file_atomically(const QString& path, const QByteArray& bytes, QString& error) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered)) {
    error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  const qint64 written = file.write(bytes);
  if (written != bytes.size()) {
    error = QObject::tr("cannot write %1: only %2 of %3 bytes could be written (is the disk full?)")
                .arg(path)
                .arg(std::max<qint64>(written, 0))
                .arg(bytes.size());
    return false;  // the destructor discards the temporary file
  }
  if (!file.commit()) {
    error = QObject::tr("cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

QString default_recovery_dir() {
  const QString state = qEnvironmentVariable("XDG_STATE_HOME");
  const QString base = state.isEmpty() ? QDir::homePath() + QStringLiteral("/.local/state") : state;
  return base + QStringLiteral("/meshscope");
}

RecoveryStore::RecoveryStore(QString dir, qint64 pid) : dir_(std::move(dir)), pid_(pid) {}

QString RecoveryStore::file() const {
  return dir_.isEmpty() ? QString() : QDir(dir_).filePath(kPrefix + QString::number(pid_) + kSuffix);
}

bool RecoveryStore::write(const Project& project, const QString& original_path, QString& error) const {
  if (!enabled()) return true;
  if (!QDir().mkpath(dir_)) {
    error = QObject::tr("cannot create the recovery folder %1").arg(dir_);
    return false;
  }
  const nlohmann::json doc = {{"format", kRecoveryFormat},
                              {"pid", pid_},
                              {"saved_at", QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString()},
                              {"original_path", original_path.toStdString()},
                              {"project", project_to_json(project)}};
  return write_file_atomically(file(), QByteArray::fromStdString(doc.dump(1) + "\n"), error);
}

void RecoveryStore::remove() const {
  if (enabled()) QFile::remove(file());
}

std::vector<RecoveredProject> RecoveryStore::orphans(QStringList* problems) const {
  std::vector<RecoveredProject> found;
  if (!enabled()) return found;
  const QDir dir(dir_);
  for (const QFileInfo& info : dir.entryInfoList({kPrefix + QStringLiteral("*") + kSuffix}, QDir::Files)) {
    const QString name = info.fileName();
    bool numeric = false;
    const qint64 pid = name.mid(kPrefix.size(), name.size() - kPrefix.size() - kSuffix.size()).toLongLong(&numeric);
    if (!numeric || pid == pid_ || process_running(pid)) continue;  // another window's live autosave
    const std::string path = QFile::encodeName(info.filePath()).toStdString();
    Result<RecoveredProject> recovered = [&]() -> Result<RecoveredProject> {
      MS_TRY(text, read_text_file(path));
      MS_TRY(doc, parse_json_text(text, path));
      if (!doc.is_object() || !doc.contains("project") || !doc["format"].is_string() ||
          doc["format"].get<std::string>() != kRecoveryFormat)
        return make_error(ErrorCode::parse_error, "not a meshscope recovery file", path);
      MS_TRY(project, project_from_json(doc.at("project"), path));
      RecoveredProject r;
      r.file = info.filePath();
      r.project = std::move(project);
      const nlohmann::json& original = doc["original_path"];
      if (original.is_string()) r.original_path = QString::fromStdString(original.get<std::string>());
      const nlohmann::json& saved = doc["saved_at"];
      if (saved.is_string())
        r.saved_at = QDateTime::fromString(QString::fromStdString(saved.get<std::string>()), Qt::ISODate).toLocalTime();
      if (!r.saved_at.isValid()) r.saved_at = info.lastModified();
      return r;
    }();
    if (!recovered) {
      if (problems) *problems << QString::fromStdString(recovered.error().to_string());
      continue;
    }
    found.push_back(std::move(*recovered));
  }
  std::sort(found.begin(), found.end(),
            [](const RecoveredProject& a, const RecoveredProject& b) { return a.saved_at > b.saved_at; });
  return found;
}

}  // namespace meshscope::ui
