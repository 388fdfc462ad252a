#pragma once

#include "historysample.h"
#include "serieskey.h"

#include <QHash>
#include <QObject>
#include <QVector>
#include <optional>
#include <vector>

namespace opsdeck::history {

class HistoryStore;

/// The recent points of every series the console shows, in memory, for the
/// charts: per (service, key) a ring of `capacity()` samples (default 1 h at
/// 1 s: 3,600 samples × sizeof(Sample) = 16 bytes = 57,600 bytes per series,
/// allocated when the series first appears), at most `maxSeries` series
/// (default 1,024, further series are ignored). When samples come faster than
/// `periodMs` the ring holds the newest `capacity()` of them.
/// Filled live from the poller (HistoryRecorder) and, after a restart, from
/// the history database (preload), so charts show the last hours at once.
/// Thread: the GUI thread (or any one thread).
class HotWindow : public QObject
{
    Q_OBJECT
public:
    struct Settings
    {
        qint64 windowMs = 3600 * 1000; ///< span kept, ms
        qint64 periodMs = 1000;        ///< expected sample period, ms (sizes the ring)
        int maxSeries = 1024;
    };

    explicit HotWindow(QObject *parent = nullptr);
    explicit HotWindow(const Settings &settings, QObject *parent = nullptr);

    /// Samples per series: windowMs / periodMs.
    qsizetype capacity() const;
    const Settings &settings() const { return m_settings; }

    /// Appends one sample; emits appended(). Older samples fall out of the ring.
    void append(const QString &service, const QString &key, qint64 timeMs, double value);
    /// The series' samples, oldest first (in arrival order), at most capacity().
    QVector<Sample> points(const QString &service, const QString &key) const;
    /// The newest sample of the series (the last to arrive), without copying
    /// the ring; nullopt when it has none.
    std::optional<Sample> latest(const QString &service, const QString &key) const;
    QVector<SeriesKey> seriesKeys() const;
    /// The newest sample time of any series, ms since the Unix epoch; 0 when
    /// empty. Charts' live edge: a series that stopped (a killed decode) keeps
    /// moving left with the others instead of freezing its own axis.
    qint64 newestMs() const { return m_newestMs; }
    /// Memory held by the rings, bytes (capacity × sizeof(Sample) per series).
    qint64 bytesUsed() const;

    /// Loads the last `hours` (before `nowMs`) of every stored series into
    /// the rings, as raw samples or rollup means. Returns the number of
    /// points loaded (or 0 when the store cannot be read).
    qint64 preload(HistoryStore &store, double hours, qint64 nowMs);

Q_SIGNALS:
    void appended(const QString &service, const QString &key);

private:
    struct Ring
    {
        std::vector<Sample> samples; ///< sized capacity() once
        qsizetype next = 0;          ///< where the next sample goes
        qsizetype size = 0;
    };
    bool push(const SeriesKey &series, const Sample &sample);

    Settings m_settings;
    QHash<SeriesKey, Ring> m_rings;
    qint64 m_newestMs = 0;
};

} // namespace opsdeck::history
