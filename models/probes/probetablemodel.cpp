#include "probetablemodel.h"

#include <QDateTime>

namespace opsdeck::probes {

namespace {

QString msText(double ms)
{
    return ms < 0 ? QStringLiteral("–") : QString::number(ms, 'f', ms >= 100 ? 0 : 1);
}

QString statusText(const ProbeResult &r)
{
    if (r.cancelled)
        return QStringLiteral("cancelled");
    if (r.timedOut)
        return QStringLiteral("timeout");
    return r.status > 0 ? QString::number(r.status) : QStringLiteral("no answer");
}

QString noteText(const ProbeResult &r)
{
    if (!r.note.isEmpty())
        return r.note;
    return r.error;
}

} // namespace

ProbeTableModel::ProbeTableModel(QObject *parent) : QAbstractTableModel(parent) {}

QString ProbeTableModel::reusedText(const ProbeResult &result)
{
    if (result.staleKeepAlive)
        return QStringLiteral("stale");
    return result.connectionReused ? QStringLiteral("yes") : QStringLiteral("no");
}

void ProbeTableModel::append(const ProbeRow &row)
{
    if (m_rows.size() >= maxRows()) {
        beginRemoveRows({}, maxRows() - 1, int(m_rows.size()) - 1);
        m_rows.resize(maxRows() - 1);
        endRemoveRows();
    }
    beginInsertRows({}, 0, 0);
    m_rows.prepend(row);
    endInsertRows();
}

void ProbeTableModel::clear()
{
    beginResetModel();
    m_rows.clear();
    endResetModel();
}

ProbeRow ProbeTableModel::row(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows[row] : ProbeRow{};
}

int ProbeTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rows.size());
}

int ProbeTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProbeTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows.size())
        return {};
    const ProbeRow &row = m_rows[index.row()];
    const ProbeResult &r = row.result;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= Dns && index.column() <= Ttft
                   ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                   : QVariant();
    if (role == Qt::ToolTipRole && index.column() == Note)
        return noteText(r);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case Time:
        return QDateTime::fromMSecsSinceEpoch(r.startedAtMs)
            .toString(QStringLiteral("HH:mm:ss.zzz"));
    case Path:
        return row.pathName;
    case Mode:
        return connectionModeName(r.mode);
    case Connection:
        return r.localPort > 0 ? QString::number(r.localPort) : QStringLiteral("–");
    case Reused:
        return reusedText(r);
    case Dns:
        return msText(r.namelookupMs);
    case Connect:
        return msText(r.connectMs);
    case Tls:
        return msText(r.tlsMs);
    case Ttfb:
        return msText(r.ttfbMs);
    case Total:
        // A timed-out probe waited at least this long: a bound, not a length.
        return r.timedOut ? QStringLiteral("> %1").arg(msText(r.totalMs)) : msText(r.totalMs);
    case Ttft:
        return msText(r.ttftMs);
    case Status:
        return statusText(r);
    case Note:
        return noteText(r);
    default:
        return {};
    }
}

QVariant ProbeTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    // Units in the panel's title ("times in ms"): the headers stay narrow
    // enough for the note column on a laptop.
    static const char *const titles[] = {"Time", "Path",    "Mode", "Conn id", "Reused",
                                         "DNS",  "Connect", "TLS",  "TTFB",    "Total",
                                         "TTFT", "Status",  "Note"};
    static const char *const tips[] = {
        "When the probe started (local time)",
        "The hops the probe crossed",
        "fresh: a new connection; reused: the kept-alive connection after the idle gap",
        "The connection's local port: one port across reused rows is one kept-alive connection",
        "Reused as curl counted it: yes, no (a new connection), stale (the server had closed "
        "the idle connection and curl replaced it)",
        "curl time_namelookup, ms",
        "curl time_connect, ms (0 on a reused connection)",
        "curl time_appconnect, ms (0 without TLS or when reused)",
        "curl time_starttransfer, ms: the first response byte",
        "curl time_total, ms; \"> N\" when the probe timed out (it would have taken longer)",
        "Time to the first content token, ms (streamed probes only)",
        "HTTP status, or timeout / no answer",
        "Warm-up, stale keep-alive, errors"};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return QString::fromLatin1(titles[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromLatin1(tips[section]);
    return {};
}

} // namespace opsdeck::probes
