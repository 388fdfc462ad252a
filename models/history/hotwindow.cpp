#include "hotwindow.h"

#include "historystore.h"

#include <algorithm>

namespace opsdeck::history {

HotWindow::HotWindow(QObject *parent) : HotWindow(Settings{}, parent) {}

HotWindow::HotWindow(const Settings &settings, QObject *parent)
    : QObject(parent), m_settings(settings)
{
}

qsizetype HotWindow::capacity() const
{
    return std::max<qsizetype>(1, m_settings.windowMs / std::max<qint64>(1, m_settings.periodMs));
}

bool HotWindow::push(const SeriesKey &series, const Sample &sample)
{
    auto it = m_rings.find(series);
    if (it == m_rings.end()) {
        if (m_rings.size() >= m_settings.maxSeries)
            return false;
        it = m_rings.insert(series, Ring{});
        it->samples.resize(static_cast<size_t>(capacity()));
    }
    Ring &ring = *it;
    m_newestMs = std::max(m_newestMs, sample.timeMs);
    ring.samples[static_cast<size_t>(ring.next)] = sample;
    ring.next = (ring.next + 1) % capacity();
    ring.size = std::min(ring.size + 1, capacity());
    return true;
}

void HotWindow::append(const QString &service, const QString &key, qint64 timeMs, double value)
{
    if (push({service, key}, {timeMs, value}))
        Q_EMIT appended(service, key);
}

QVector<Sample> HotWindow::points(const QString &service, const QString &key) const
{
    QVector<Sample> out;
    const auto it = m_rings.constFind({service, key});
    if (it == m_rings.cend())
        return out;
    const Ring &ring = *it;
    out.reserve(ring.size);
    const qsizetype cap = capacity();
    for (qsizetype i = 0; i < ring.size; ++i)
        out.append(ring.samples[static_cast<size_t>((ring.next - ring.size + i + cap) % cap)]);
    return out;
}

std::optional<Sample> HotWindow::latest(const QString &service, const QString &key) const
{
    const auto it = m_rings.constFind({service, key});
    if (it == m_rings.cend() || it->size == 0)
        return std::nullopt;
    const qsizetype cap = capacity();
    return it->samples[static_cast<size_t>((it->next - 1 + cap) % cap)];
}

QVector<SeriesKey> HotWindow::seriesKeys() const
{
    QVector<SeriesKey> keys;
    for (auto it = m_rings.cbegin(); it != m_rings.cend(); ++it)
        keys.append(it.key());
    return keys;
}

qint64 HotWindow::bytesUsed() const
{
    return static_cast<qint64>(m_rings.size()) * capacity() * static_cast<qint64>(sizeof(Sample));
}

qint64 HotWindow::preload(HistoryStore &store, double hours, qint64 nowMs)
{
    const qint64 fromMs = nowMs - static_cast<qint64>(hours * 3600.0 * 1000.0);
    qint64 loaded = 0;
    for (const SeriesInfo &series : store.seriesList()) {
        const SeriesKey key{series.service, series.key};
        const auto points = store.points(series.service, series.key, fromMs, nowMs);
        // Only the newest capacity() points can stay in the ring.
        const qsizetype skip = std::max<qsizetype>(0, points.size() - capacity());
        for (qsizetype i = skip; i < points.size(); ++i) {
            if (!push(key, {points[i].timeMs, points[i].value}))
                break;
            ++loaded;
        }
        if (points.size() > skip)
            Q_EMIT appended(series.service, series.key);
    }
    return loaded;
}

} // namespace opsdeck::history
