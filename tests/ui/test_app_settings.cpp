// The app's settings: one key table, typed accessors, values that survive a new AppSettings (a new
// QSettings on the same file), defaults for what was never written.
#include <catch2/catch.hpp>

#include <QDir>
#include <QFileInfo>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include "qt_catch.hpp"
#include "ui/window/app_settings.hpp"

using meshscope::ui::AppSettings;

namespace {

// Points the user-scope settings at a temporary folder while it lives, then back at the test-mode
// location main() chose (QStandardPaths::setTestModeEnabled).
class TemporarySettingsLocation {
 public:
  TemporarySettingsLocation() {
    REQUIRE(dir_.isValid());
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, dir_.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, dir_.path());
  }
  ~TemporarySettingsLocation() {
    const QString standard = QStandardPaths::writableLocation(QStandardPaths::GenericConfigLocation);
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, standard);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, standard);
  }
  TemporarySettingsLocation(const TemporarySettingsLocation&) = delete;
  TemporarySettingsLocation& operator=(const TemporarySettingsLocation&) = delete;
  [[nodiscard]] QString path() const { return dir_.path(); }

 private:
  QTemporaryDir dir_;
};

}  // namespace

TEST_CASE("settings: the key table names each key once, in Key order, with its type and default") {
  const auto& keys = AppSettings::keys();
  QSet<QString> names;
  for (size_t i = 0; i < keys.size(); ++i) {
    CHECK(static_cast<size_t>(keys[i].key) == i);
    CHECK(QString::fromLatin1(keys[i].name).size() > 0);
    names.insert(QString::fromLatin1(keys[i].name));
    if (keys[i].default_value.isValid()) CHECK(keys[i].default_value.metaType() == QMetaType(keys[i].type));
  }
  CHECK(names.size() == static_cast<qsizetype>(keys.size()));
  // The names files already hold.
  CHECK(QString::fromLatin1(AppSettings::spec(AppSettings::Key::recent_files).name) == QStringLiteral("recentFiles"));
  CHECK(QString::fromLatin1(AppSettings::spec(AppSettings::Key::autosave_interval_s).name) ==
        QStringLiteral("autosaveIntervalSeconds"));
  CHECK(QString::fromLatin1(AppSettings::spec(AppSettings::Key::window_geometry).name) == QStringLiteral("geometry"));
  CHECK(QString::fromLatin1(AppSettings::spec(AppSettings::Key::window_state).name) == QStringLiteral("windowState"));
}

TEST_CASE("settings: values round-trip through the settings file; unset keys read as their defaults") {
  const TemporarySettingsLocation location;
  {
    const AppSettings fresh;
    CHECK(fresh.autosave_interval_s() == AppSettings::kDefaultAutosaveIntervalS);
    CHECK(fresh.recent_files().isEmpty());
    CHECK(fresh.window_geometry().isEmpty());
    CHECK(fresh.window_state().isEmpty());
    CHECK_FALSE(fresh.presenter_mode());
  }
  const QStringList recent = {QStringLiteral("/tmp/b.json"), QStringLiteral("/tmp/a.json")};
  {
    AppSettings settings;
    settings.set_autosave_interval_s(15);
    settings.set_recent_files(recent);
    settings.set_window_geometry(QByteArray("\x01\x02geometry", 10));
    settings.set_window_state(QByteArray("state"));
    settings.set_presenter_mode(true);
  }
  {
    const AppSettings reread;
    CHECK(reread.autosave_interval_s() == 15);
    CHECK(reread.recent_files() == recent);
    CHECK(reread.window_geometry() == QByteArray("\x01\x02geometry", 10));
    CHECK(reread.window_state() == QByteArray("state"));
    CHECK(reread.presenter_mode());
  }
  // The file is the one in the temporary location, under the keys of the table.
  QSettings raw;
  CHECK(QFileInfo(raw.fileName()).absoluteFilePath().startsWith(QDir(location.path()).absolutePath()));
  CHECK(raw.value(QStringLiteral("recentFiles")).toStringList() == recent);
  CHECK(raw.value(QStringLiteral("autosaveIntervalSeconds")).toInt() == 15);

  AppSettings settings;
  settings.set_autosave_interval_s(0);  // at least a second
  CHECK(AppSettings().autosave_interval_s() == 1);
  settings.reset(AppSettings::Key::autosave_interval_s);
  CHECK(AppSettings().autosave_interval_s() == AppSettings::kDefaultAutosaveIntervalS);
}
