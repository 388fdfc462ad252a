#include "settingsvalues.h"

#include <QSettings>
#include <QStringList>
#include <spdlog/spdlog.h>

using namespace Qt::StringLiterals;

namespace opsdeck::settings {

QString settingsString(const QSettings &settings, const QString &key)
{
    // A plain string is a one-item list; a missing key an empty one.
    return settings.value(key).toStringList().join(u',');
}

bool settingsBool(const QSettings &settings, const QString &key)
{
    const QString value = settingsString(settings, key).trimmed();
    const QString word = value.toLower();
    if (word == "true"_L1 || word == "yes"_L1 || word == "on"_L1 || word == "1"_L1)
        return true;
    if (word.isEmpty() || word == "false"_L1 || word == "no"_L1 || word == "off"_L1 ||
        word == "0"_L1)
        return false;
    // "[secrets] plaintext_fallback", also when the key carries its group.
    const QString path = settings.group().isEmpty() ? key : settings.group() + u'/' + key;
    const qsizetype slash = path.lastIndexOf(u'/');
    const QString where =
        slash < 0 ? path : u'[' + path.left(slash) + u"] "_s + path.mid(slash + 1);
    spdlog::warn("{}: {}={} is not a boolean (true/yes/on/1 or false/no/off/0); taken as off",
                 settings.fileName().toStdString(), where.toStdString(), value.toStdString());
    return false;
}

} // namespace opsdeck::settings
