#pragma once

#include <QString>

class QSettings;

namespace opsdeck::settings {

/// A string (a path) from opsdeck.conf. Qt's INI reader splits an unquoted
/// value at its commas into a QStringList (whose toString() is empty), so
/// `known_hosts_file=/tmp/kh,x` would read as nothing: the list is joined back
/// with ",". Qt trims the blanks around each comma-separated part, so
/// `a , b` reads as `a,b`; a value in double quotes (`"a , b"`) is one string,
/// read as written without the quotes. A `;` starts a comment. Missing: empty.
QString settingsString(const QSettings &settings, const QString &key);

/// A boolean from opsdeck.conf, read strictly (QVariant::toBool() is true for
/// anything but "false", "0" and ""): true only for true/yes/on/1, false for
/// false/no/off/0 and an empty value (any case, blanks around ignored);
/// missing is false. Anything else is false too, with a warning naming the
/// file, the [group] key and the value.
bool settingsBool(const QSettings &settings, const QString &key);

} // namespace opsdeck::settings
