#include "yamlmapping.h"

#include "duration.h"

#include <algorithm>
#include <vector>
#include <yaml-cpp/yaml.h>

using namespace Qt::StringLiterals;

namespace opsdeck::inventory::detail {

namespace {

int editDistance(const QString &a, const QString &b)
{
    std::vector<int> row(static_cast<size_t>(b.size()) + 1);
    for (size_t j = 0; j < row.size(); ++j)
        row[j] = static_cast<int>(j);
    for (qsizetype i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = static_cast<int>(i);
        for (qsizetype j = 1; j <= b.size(); ++j) {
            const int above = row[static_cast<size_t>(j)];
            const int cost = a[i - 1].toLower() == b[j - 1].toLower() ? 0 : 1;
            row[static_cast<size_t>(j)] =
                std::min({above + 1, row[static_cast<size_t>(j - 1)] + 1, diagonal + cost});
            diagonal = above;
        }
    }
    return row.back();
}

// A near miss is almost always a typo of a known key; naming it saves a trip to the docs.
QString unknownKeyMessage(const QString &key, const QStringList &known)
{
    const QString best = nearest(key, known);
    if (!best.isEmpty())
        return u"unknown key '%1' (did you mean '%2'?)"_s.arg(key, best);
    return u"unknown key '%1' (expected %2)"_s.arg(key, alternatives(known));
}

} // namespace

QString nearest(const QString &word, const QStringList &known)
{
    QString best;
    int bestDistance = 3;
    for (const QString &candidate : known) {
        const int distance = editDistance(word, candidate);
        if (distance < bestDistance) {
            best = candidate;
            bestDistance = distance;
        }
    }
    return best;
}

QString alternatives(const QStringList &words)
{
    if (words.size() < 2)
        return words.join(QString());
    return words.mid(0, words.size() - 1).join(u", "_s) + u" or "_s + words.last();
}

QString describe(const YAML::Node &node)
{
    switch (node.Type()) {
    case YAML::NodeType::Scalar:
        return u"'%1'"_s.arg(QString::fromStdString(node.Scalar()));
    case YAML::NodeType::Sequence:
        return u"a list"_s;
    case YAML::NodeType::Map:
        return u"a mapping"_s;
    default:
        return u"nothing"_s;
    }
}

YamlMapping::YamlMapping(InventoryDiagnostics &diagnostics, const YAML::Node &node, QString path,
                         const QStringList &known)
    : m_diagnostics(diagnostics), m_path(std::move(path)), m_position(positionOf(node.Mark()))
{
    for (auto it = node.begin(); it != node.end(); ++it) {
        const YAML::Node key = it->first;
        const Position keyPosition = positionOf(key.Mark());
        if (!key.IsScalar()) {
            m_diagnostics.add(keyPosition, m_path,
                              u"a key must be a plain name, found %1"_s.arg(describe(key)));
            continue;
        }
        const QString name = QString::fromStdString(key.Scalar());
        if (!known.contains(name)) {
            m_diagnostics.add(keyPosition, this->path(name), unknownKeyMessage(name, known));
            continue;
        }
        // yaml-cpp keeps both copies of a repeated key and lookups see only the
        // first, so the second would be ignored without a word.
        if (const auto first = m_entries.constFind(name); first != m_entries.constEnd()) {
            m_diagnostics.add(keyPosition, this->path(name),
                              u"key '%1' appears twice (first at line %2)"_s.arg(name).arg(
                                  positionOf(first->key.Mark()).line));
            continue;
        }
        m_entries.insert(name, {key, it->second});
    }
}

bool YamlMapping::expectMapping(InventoryDiagnostics &diagnostics, const YAML::Node &node,
                                const QString &path)
{
    if (node.IsMap())
        return true;
    diagnostics.add(path, u"expected a mapping, found %1"_s.arg(describe(node)));
    return false;
}

QString YamlMapping::path(const QString &key) const
{
    return m_path.isEmpty() ? key : m_path + u'.' + key;
}

bool YamlMapping::has(const QString &key) const
{
    return m_entries.contains(key);
}

const YamlMapping::Entry *YamlMapping::present(const QString &key)
{
    const auto it = m_entries.constFind(key);
    if (it == m_entries.constEnd())
        return nullptr;
    m_diagnostics.remember(path(key), valuePosition(*it));
    return it->value.IsNull() ? nullptr : &*it;
}

Position YamlMapping::valuePosition(const Entry &entry) const
{
    // yaml-cpp marks an empty value at the next token, often on the next line.
    return positionOf(entry.value.IsNull() ? entry.key.Mark() : entry.value.Mark());
}

void YamlMapping::error(const QString &key, const QString &message)
{
    const auto it = m_entries.constFind(key);
    m_diagnostics.add(it == m_entries.constEnd() ? m_position : valuePosition(*it), path(key),
                      message);
}

void YamlMapping::missing(const QString &key, const QString &why)
{
    QString message = u"missing required field '%1'"_s.arg(key);
    if (!why.isEmpty())
        message += u" ("_s + why + u')';
    m_diagnostics.add(m_position, path(key), message);
}

std::optional<QString> YamlMapping::text(const QString &key, Need need)
{
    const Entry *entry = present(key);
    if (!entry) {
        if (need == Need::Required && has(key))
            error(key, u"must not be empty"_s);
        else if (need == Need::Required)
            missing(key);
        return std::nullopt;
    }
    if (!entry->value.IsScalar()) {
        error(key, u"expected a string, found %1"_s.arg(describe(entry->value)));
        return std::nullopt;
    }
    const QString value = QString::fromStdString(entry->value.Scalar());
    if (value.isEmpty() && need == Need::Required) {
        error(key, u"must not be empty"_s);
        return std::nullopt;
    }
    return value;
}

std::optional<bool> YamlMapping::boolean(const QString &key)
{
    const std::optional<QString> value = text(key);
    if (!value)
        return std::nullopt;
    // A quoted "true" is a string in YAML: a switch such as `armed` is set
    // only by the boolean itself (yaml-cpp tags a quoted scalar "!").
    if (const Entry *entry = present(key); entry && entry->value.Tag() == "!") {
        error(key, u"expected true or false, found the string \"%1\" (quoted)"_s.arg(*value));
        return std::nullopt;
    }
    if (value->compare(u"true"_s, Qt::CaseInsensitive) == 0)
        return true;
    if (value->compare(u"false"_s, Qt::CaseInsensitive) == 0)
        return false;
    error(key, u"expected true or false, found '%1'"_s.arg(*value));
    return std::nullopt;
}

std::optional<int> YamlMapping::integer(const QString &key, int min, int max)
{
    const std::optional<QString> value = text(key);
    if (!value)
        return std::nullopt;
    bool ok = false;
    const int number = value->toInt(&ok, 10);
    if (!ok) {
        error(key, u"'%1' is not a whole number"_s.arg(*value));
        return std::nullopt;
    }
    if (number < min || number > max) {
        error(key, u"%1 is out of range (expected %2 to %3)"_s.arg(number).arg(min).arg(max));
        return std::nullopt;
    }
    return number;
}

std::optional<double> YamlMapping::duration(const QString &key, double minS, double maxS)
{
    const std::optional<QString> value = text(key);
    if (!value)
        return std::nullopt;
    const std::optional<double> seconds = parseDurationS(*value);
    if (!seconds) {
        error(key, u"'%1' is not a duration (expected seconds or a number with s, ms, m or h, "
                   "e.g. 60s)"_s.arg(*value));
        return std::nullopt;
    }
    if (*seconds < minS || *seconds > maxS) {
        error(key, u"%1 is out of range (expected %2 s to %3 s)"_s.arg(*value).arg(minS).arg(maxS));
        return std::nullopt;
    }
    return seconds;
}

std::optional<QStringList> YamlMapping::textList(const QString &key, Need need)
{
    const std::optional<YAML::Node> list = sequence(key);
    if (!list) {
        if (need == Need::Required && !has(key))
            missing(key);
        else if (need == Need::Required && !m_diagnostics.failed(path(key)))
            error(key, u"must list at least one name"_s);
        return std::nullopt;
    }
    if (list->size() == 0 && need == Need::Required)
        error(key, u"must list at least one name"_s);
    QStringList values;
    int index = 0;
    for (const YAML::Node &item : *list) {
        const QString itemPath = path(key) + u"[%1]"_s.arg(index++);
        const Position where = item.IsNull() ? positionOf(list->Mark()) : positionOf(item.Mark());
        m_diagnostics.remember(itemPath, where);
        if (!item.IsScalar())
            m_diagnostics.add(where, itemPath,
                              u"expected a string, found %1"_s.arg(describe(item)));
        else if (item.Scalar().empty())
            m_diagnostics.add(where, itemPath, u"must not be empty"_s);
        else
            values.append(QString::fromStdString(item.Scalar()));
    }
    return values;
}

std::optional<YAML::Node> YamlMapping::mapping(const QString &key)
{
    const Entry *entry = present(key);
    if (!entry)
        return std::nullopt;
    if (!entry->value.IsMap()) {
        error(key, u"expected a mapping, found %1"_s.arg(describe(entry->value)));
        return std::nullopt;
    }
    return entry->value;
}

std::optional<YAML::Node> YamlMapping::sequence(const QString &key)
{
    const Entry *entry = present(key);
    if (!entry)
        return std::nullopt;
    if (!entry->value.IsSequence()) {
        error(key, u"expected a list, found %1"_s.arg(describe(entry->value)));
        return std::nullopt;
    }
    return entry->value;
}

} // namespace opsdeck::inventory::detail
