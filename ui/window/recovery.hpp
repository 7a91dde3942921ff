#pragma once
// Autosave and crash recovery: each running window writes its unsaved project to a recovery file
// of its own (recovery-<pid>.json in the user's state directory, written atomically). A clean save
// or quit removes it; a file left by a process that is no longer running is a project that was not
// saved before a crash, and the next start offers to restore it.
#include <QDateTime>
#include <QString>

#include <optional>
#include <vector>

#include "core/project/project.hpp"

namespace meshscope::ui {

// Writes `bytes` to `path` atomically (QSaveFile): the old file is replaced only when every byte was
// written. Unbuffered, because Qt 6.4's buffered QSaveFile commits a short write (disk full, file
// size limit) as if it were whole: the truncated file would replace the good one.
bool write_file_atomically(const QString& path, const QByteArray& bytes, QString& error);

// $XDG_STATE_HOME/meshscope, or ~/.local/state/meshscope (XDG Base Directory Specification 0.8).
[[nodiscard]] QString default_recovery_dir();

// A project found in a recovery file left by a process that has ended.
struct RecoveredProject {
  QString file;           // the recovery file itself
  QString original_path;  // the project file it was opened from or saved to ("" when never saved)
  QDateTime saved_at;     // when the autosave wrote it (local time)
  Project project;
};

class RecoveryStore {
 public:
  // `dir` empty: autosave is off (nothing is written or found).
  explicit RecoveryStore(QString dir, qint64 pid);

  [[nodiscard]] bool enabled() const { return !dir_.isEmpty(); }
  // This process's recovery file.
  [[nodiscard]] QString file() const;
  // Writes the project atomically (QSaveFile); false with the reason in `error`.
  bool write(const Project& project, const QString& original_path, QString& error) const;
  // Removes this process's recovery file (after a clean save, a quit, or a discard).
  void remove() const;
  // The recovery files left by processes that are no longer running, newest first. A file that
  // cannot be read is reported in `problems` (and kept, so that nothing is deleted unread).
  [[nodiscard]] std::vector<RecoveredProject> orphans(QStringList* problems = nullptr) const;

 private:
  QString dir_;
  qint64 pid_;
};

}  // namespace meshscope::ui
