#pragma once

#include <QColor>
#include <QString>
#include <iterator>

/// One line of a SeriesPanel's chart: which recorded series it draws
/// (HotWindow's (service, key)), its legend entry and colour, and the factor
/// its values are multiplied by for display (KV usage is recorded as a
/// ratio and shown in %, latencies in s and shown in ms). Plain data.
struct PanelSeries
{
    QString service; ///< inventory::Service::name
    QString key;     ///< probes::SeriesValue::key, or "live_running" etc. (history::SeriesKey)
    QString label;   ///< legend entry; unique within one chart
    QColor color;
    double scale = 1; ///< shown value = recorded value × scale
};

/// The i-th of a set of colours that stay apart on light and dark charts
/// (TimeSeriesChart adjusts contrast), for panels with many series.
inline QColor panelColor(int i)
{
    static const QColor colors[] = {{0x15, 0x65, 0xc0}, {0xef, 0x6c, 0x00}, {0x2e, 0x7d, 0x32},
                                    {0x8e, 0x24, 0xaa}, {0xc6, 0x28, 0x28}, {0x00, 0x83, 0x8f},
                                    {0x6d, 0x4c, 0x41}, {0xad, 0x14, 0x57}};
    return colors[i % int(std::size(colors))];
}
