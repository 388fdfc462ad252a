#include "nvidiasmicsv.h"

namespace opsdeck::remote {

namespace {

bool isUnavailable(const QString &value)
{
    return value == u"N/A" ||
           (value.startsWith(QLatin1Char('[')) && value.endsWith(QLatin1Char(']')));
}

QString quoted(const QString &line)
{
    constexpr int maxShown = 200;
    return line.size() > maxShown ? line.left(maxShown) + QStringLiteral("...") : line;
}

// Splits by field count: nvidia-smi does not quote, so commas past the
// expected count are part of the name.
std::optional<QStringList> splitLine(const QString &line, const QStringList &fields)
{
    QStringList parts = line.split(QLatin1Char(','));
    if (parts.size() < fields.size())
        return std::nullopt;
    const int extra = static_cast<int>(parts.size() - fields.size());
    if (extra > 0) {
        const int nameAt = static_cast<int>(fields.indexOf(QStringLiteral("name")));
        if (nameAt < 0)
            return std::nullopt;
        const QStringList nameParts = parts.mid(nameAt, extra + 1);
        parts.erase(parts.begin() + nameAt, parts.begin() + nameAt + extra + 1);
        parts.insert(nameAt, nameParts.join(QLatin1Char(',')));
    }
    for (QString &part : parts)
        part = part.trimmed();
    return parts;
}

std::optional<double> *numberField(GpuSample &gpu, const QString &field)
{
    if (field == u"utilization.gpu")
        return &gpu.utilizationPercent;
    if (field == u"memory.used")
        return &gpu.memoryUsedMiB;
    if (field == u"memory.total")
        return &gpu.memoryTotalMiB;
    if (field == u"memory.free")
        return &gpu.memoryFreeMiB;
    if (field == u"temperature.gpu")
        return &gpu.temperatureC;
    if (field == u"power.draw")
        return &gpu.powerDrawW;
    if (field == u"power.limit")
        return &gpu.powerLimitW;
    return nullptr;
}

// Fills `gpu` from one split line; returns an error text or empty.
QString fill(GpuSample &gpu, const QStringList &fields, const QStringList &values)
{
    for (int i = 0; i < fields.size(); ++i) {
        const QString &field = fields.at(i);
        const QString &value = values.at(i);
        if (isUnavailable(value)) {
            gpu.unavailable << QStringLiteral("%1: %2").arg(field, value);
            continue;
        }
        if (field == u"name") {
            gpu.name = value;
        } else if (field == u"uuid" || field == u"gpu_uuid") {
            gpu.uuid = value;
        } else if (field == u"index") {
            bool ok = false;
            gpu.index = value.toInt(&ok);
            if (!ok)
                return QStringLiteral("index is not a number: \"%1\"").arg(value);
        } else if (auto *target = numberField(gpu, field)) {
            bool ok = false;
            const double number = value.toDouble(&ok);
            if (!ok)
                return QStringLiteral("%1 is not a number: \"%2\"").arg(field, value);
            *target = number;
        }
    }
    return {};
}

} // namespace

QStringList NvidiaSmiCsv::defaultFields()
{
    return {QStringLiteral("index"),
            QStringLiteral("uuid"),
            QStringLiteral("utilization.gpu"),
            QStringLiteral("memory.used"),
            QStringLiteral("memory.total"),
            QStringLiteral("temperature.gpu"),
            QStringLiteral("power.draw"),
            QStringLiteral("power.limit"),
            QStringLiteral("name")};
}

QString NvidiaSmiCsv::defaultCommand()
{
    return QStringLiteral("nvidia-smi --query-gpu=%1 --format=csv,noheader,nounits")
        .arg(defaultFields().join(QLatin1Char(',')));
}

NvidiaSmiCsv::Result NvidiaSmiCsv::parse(const QByteArray &output, const QStringList &fields)
{
    Result result;
    const QStringList lines = QString::fromUtf8(output).split(QLatin1Char('\n'));
    for (int i = 0; i < lines.size(); ++i) {
        QString line = lines.at(i);
        if (line.endsWith(QLatin1Char('\r')))
            line.chop(1);
        if (line.trimmed().isEmpty())
            continue;
        if (line.startsWith(QLatin1String("WARNING:"))) {
            result.warnings << line.trimmed();
            continue;
        }
        const auto values = splitLine(line, fields);
        if (!values) {
            // A message instead of CSV: show the message itself, it is what
            // the operator needs (driver not loaded, GPU lost...).
            result.error = result.gpus.isEmpty()
                               ? quoted(QString::fromUtf8(output).simplified())
                               : QStringLiteral("line %1: expected %2 values, got: %3")
                                     .arg(i + 1)
                                     .arg(fields.size())
                                     .arg(quoted(line));
            result.gpus.clear();
            return result;
        }
        GpuSample gpu;
        const QString problem = fill(gpu, fields, *values);
        if (!problem.isEmpty()) {
            result.error =
                QStringLiteral("line %1: %2 in: %3").arg(i + 1).arg(problem, quoted(line));
            result.gpus.clear();
            return result;
        }
        result.gpus.append(gpu);
    }
    return result;
}

} // namespace opsdeck::remote
