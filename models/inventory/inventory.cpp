#include "inventory.h"

#include "alertschecker.h"
#include "inventorychecker.h"
#include "inventorydiagnostics.h"
#include "inventoryreader.h"
#include "visibletext.h"
#include "yamlbudget.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QUtf8StringView>
#include <algorithm>
#include <exception>
#include <string>
#include <vector>
#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory {

QString hostKindName(HostKind kind)
{
    return kind == HostKind::Ssh ? u"ssh"_s : u"local"_s;
}

std::optional<HostKind> hostKindFromName(const QString &name)
{
    if (name == u"local"_s)
        return HostKind::Local;
    if (name == u"ssh"_s)
        return HostKind::Ssh;
    return std::nullopt;
}

QString roleName(Role role)
{
    switch (role) {
    case Role::Prefill:
        return u"prefill"_s;
    case Role::Decode:
        return u"decode"_s;
    case Role::Router:
        return u"router"_s;
    case Role::Proxy:
        return u"proxy"_s;
    case Role::Engine:
        break;
    }
    return u"engine"_s;
}

std::optional<Role> roleFromName(const QString &name)
{
    for (Role role : {Role::Prefill, Role::Decode, Role::Router, Role::Proxy, Role::Engine}) {
        if (roleName(role) == name)
            return role;
    }
    return std::nullopt;
}

QUrl withPath(const QUrl &base, const QString &path)
{
    QUrl url = base;
    QString prefix = base.path();
    while (prefix.endsWith(u'/'))
        prefix.chop(1);
    const qsizetype query = path.indexOf(u'?');
    url.setPath(prefix + path.left(query));
    if (query >= 0)
        url.setQuery(path.mid(query + 1));
    return url;
}

namespace {

template <typename Item> const Item *findByName(const QVector<Item> &items, const QString &name)
{
    for (const Item &item : items) {
        if (item.name == name)
            return &item;
    }
    return nullptr;
}

} // namespace

QUrl Service::healthUrl() const
{
    return withPath(url, healthPath);
}

QUrl Service::urlWithPath(const QString &path) const
{
    return withPath(url, path);
}

int Service::hostPort() const
{
    return (directUrl.isEmpty() ? url : directUrl).port();
}

QUrl Service::metricsUrl() const
{
    if (!metricsUrlOverride.isEmpty())
        return metricsUrlOverride;
    if (metricsPath.isEmpty())
        return {};
    return withPath(url, metricsPath);
}

const Host *Inventory::host(const QString &name) const
{
    return findByName(hosts, name);
}

const Service *Inventory::service(const QString &name) const
{
    return findByName(services, name);
}

const Cluster *Inventory::cluster(const QString &name) const
{
    return findByName(clusters, name);
}

const Service *Inventory::firstDecode() const
{
    for (const Cluster &c : clusters) {
        if (!c.decode.isEmpty()) {
            if (const Service *decode = service(c.decode.first()))
                return decode;
        }
    }
    for (const Service &s : services) {
        if (s.role == Role::Decode)
            return &s;
    }
    return nullptr;
}

QString ValidationError::toString() const
{
    // A file name is the user's bytes too: a newline in it must not forge a line.
    QString text = logging::visibleText(file);
    if (line > 0) {
        text += u':' + QString::number(line);
        if (column > 0)
            text += u':' + QString::number(column);
    }
    text += u": "_s;
    if (!field.isEmpty())
        text += field + u": "_s;
    return text + message;
}

QStringList ownFilePatterns()
{
    return {QStringLiteral("audit.jsonl*"),    QStringLiteral("history.sqlite*"),
            QStringLiteral("*.journal"),       QStringLiteral("secrets.json*"),
            QStringLiteral("*.opsdeck-*.bak"), QStringLiteral(".opsdeck-lock-*")};
}

bool isOwnFileName(const QString &path)
{
    const QString name = path.section(u'/', -1);
    const QStringList patterns = ownFilePatterns();
    return std::any_of(patterns.cbegin(), patterns.cend(), [&](const QString &pattern) {
        return QRegularExpression(QRegularExpression::wildcardToRegularExpression(pattern))
            .match(name)
            .hasMatch();
    });
}

LoadResult loadInventory(const QString &path)
{
    // An inventory is a small regular file: a FIFO or a device would block the
    // caller (the GUI thread) or never end, and a huge file is not an inventory.
    // 1 MiB: an inventory of a few hundred services is tens of kilobytes, and
    // yaml-cpp spends about 2 µs and 500 bytes per node while parsing.
    constexpr qint64 maxBytes = 1024 * 1024;
    const QFileInfo info(path);
    if (info.exists() && (!info.isFile() || info.size() > maxBytes)) {
        LoadResult result;
        result.errors.append(
            {path, 0, 0, QString(),
             info.isFile() ? u"the inventory is %1 bytes, over the limit of %2"_s.arg(info.size())
                                 .arg(maxBytes)
                           : u"not a regular file"_s});
        return result;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        LoadResult result;
        result.errors.append(
            {path, 0, 0, QString(), u"cannot open the inventory: "_s + file.errorString()});
        return result;
    }
    const QByteArray yaml = file.readAll();
    if (file.error() != QFileDevice::NoError) {
        LoadResult result;
        result.errors.append(
            {path, 0, 0, QString(), u"cannot read the inventory: "_s + file.errorString()});
        return result;
    }
    return parseInventory(yaml, path);
}

namespace {

// Where the first byte that is not UTF-8 is (1-based line and column in
// characters), or nothing: yaml-cpp would take such bytes, and Qt would turn
// them into U+FFFD, so that a name or a path read back is not the one written.
std::optional<detail::Position> invalidUtf8(const QByteArray &yaml)
{
    if (QUtf8StringView(yaml).isValidUtf8())
        return std::nullopt;
    int line = 1;
    qsizetype start = 0;
    while (start <= yaml.size()) {
        qsizetype end = yaml.indexOf('\n', start);
        if (end < 0)
            end = yaml.size();
        const QByteArray text = yaml.mid(start, end - start);
        if (!QUtf8StringView(text).isValidUtf8()) {
            // Qt decodes a bad sequence as U+FFFD: the first one is the place
            // (a U+FFFD written as such earlier on the line would be named instead).
            const qsizetype column = QString::fromUtf8(text).indexOf(QChar::ReplacementCharacter);
            return detail::Position{line, int(std::max<qsizetype>(0, column)) + 1};
        }
        start = end + 1;
        ++line;
    }
    return detail::Position{line, 1};
}

} // namespace

LoadResult parseInventory(const QByteArray &yaml, const QString &path)
{
    detail::InventoryDiagnostics diagnostics(path);
    if (const auto where = invalidUtf8(yaml)) {
        diagnostics.add(*where, QString(),
                        u"not UTF-8: a byte here is not part of a UTF-8 character (an inventory "
                        "is UTF-8 text)"_s);
        LoadResult refused;
        refused.errors = diagnostics.sorted();
        return refused;
    }
    const QFileInfo info(path);
    std::optional<Inventory> inventory;
    // The promise is "never throws": yaml-cpp reports syntax errors by exception,
    // and anything else it or Qt throws (bad_alloc) becomes an error, too.
    try {
        const std::vector<YAML::Node> documents =
            YAML::LoadAll(std::string(yaml.constData(), static_cast<std::size_t>(yaml.size())));
        const YAML::Node root = documents.empty() ? YAML::Node() : documents.front();
        // LoadAll reads every document, so a stray `---` is seen rather than ignored.
        if (documents.size() > 1)
            diagnostics.add(detail::positionOf(documents[1].Mark()), QString(),
                            u"a second YAML document; an inventory is one document"_s);
        if (!detail::YamlBudget::check(root, diagnostics)) {
            LoadResult refused;
            refused.errors = diagnostics.sorted();
            return refused;
        }
        detail::InventoryReader reader(diagnostics, info.absolutePath());
        Inventory read = reader.read(root);
        read.path = info.absoluteFilePath();
        detail::InventoryChecker(diagnostics, read).check();
        detail::AlertsChecker(diagnostics, read).check();
        inventory = std::move(read);
    } catch (const YAML::ParserException &e) {
        diagnostics.add(detail::positionOf(e.mark), QString(),
                        u"YAML syntax error: "_s + QString::fromStdString(e.msg));
    } catch (const std::exception &e) {
        diagnostics.add({}, QString(),
                        u"cannot read the inventory: "_s + QString::fromUtf8(e.what()));
    } catch (...) {
        diagnostics.add({}, QString(), u"cannot read the inventory: unknown failure"_s);
    }
    LoadResult result;
    result.errors = diagnostics.sorted();
    if (result.errors.isEmpty())
        result.inventory = std::move(inventory);
    return result;
}

} // namespace opsdeck::inventory
