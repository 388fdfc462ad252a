#include "stallbanner.h"

#include <QTextDocument>

using opsdeck::probes::Diagnosis;

StallBanner::StallBanner(QWidget *parent) : QLabel(parent)
{
    setObjectName(QStringLiteral("stallBanner"));
    setWordWrap(true);
    setTextFormat(Qt::RichText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    setContentsMargins(10, 6, 10, 6);
    setAutoFillBackground(true);
    // A stall is a warning about the connection layer, not an outage: amber.
    QPalette stallPalette = palette();
    stallPalette.setColor(QPalette::Window, QColor(0xff, 0xf3, 0xe0));
    stallPalette.setColor(QPalette::WindowText, QColor(0x8a, 0x3b, 0x00));
    setPalette(stallPalette);
    hide();
}

QString StallBanner::headline(const Diagnosis &diagnosis)
{
    QStringList facts{QStringLiteral("clients on kept connections hang")};
    facts << (diagnosis.poolingProxies.isEmpty()
                  ? QStringLiteral("fresh connections answer")
                  : QStringLiteral("through %1 (it pools upstream connections) new ones hang too")
                        .arg(diagnosis.poolingProxies.join(QStringLiteral(", "))));
    // "Idle" only when the decode's own numbers said so.
    if (diagnosis.decodeRunningMax == 0 && diagnosis.decodeWaitingMax == 0)
        facts << QStringLiteral("engines idle");
    return QStringLiteral("Keep-alive stall at %1 — %2")
        .arg(diagnosis.hop, facts.join(QStringLiteral("; ")));
}

void StallBanner::showStall(const QString &cluster, const Diagnosis &diagnosis)
{
    m_stalls.insert(cluster, diagnosis);
    render();
}

void StallBanner::clearStall(const QString &cluster)
{
    if (m_stalls.remove(cluster) > 0)
        render();
}

void StallBanner::clearAll()
{
    m_stalls.clear();
    render();
}

QString StallBanner::plainText() const
{
    if (isHidden())
        return {};
    QTextDocument document;
    document.setHtml(text());
    return document.toPlainText();
}

void StallBanner::render()
{
    if (m_stalls.isEmpty()) {
        setText(QString());
        hide();
        return;
    }
    QString html;
    for (auto it = m_stalls.cbegin(); it != m_stalls.cend(); ++it) {
        const Diagnosis &d = it.value();
        html += QStringLiteral("<p><b>%1</b>").arg(headline(d).toHtmlEscaped());
        if (m_stalls.size() > 1)
            html += QStringLiteral(" (cluster %1)").arg(it.key().toHtmlEscaped());
        if (!d.stallLengthText().isEmpty())
            html += QStringLiteral("<br>%1").arg(d.stallLengthText().toHtmlEscaped());
        html += QStringLiteral("</p>");
        if (!d.evidenceRows.isEmpty()) {
            // One row per path, one column per stalled round: "reused / fresh".
            html += QStringLiteral("<table cellspacing=0 cellpadding=1><tr><th align=left>path"
                                   "</th><th align=left>&nbsp;reused / fresh at</th>");
            for (const QString &time : d.roundTimes)
                html +=
                    QStringLiteral("<th align=right>&nbsp;&nbsp;%1</th>").arg(time.toHtmlEscaped());
            html += QStringLiteral("</tr>");
            for (const Diagnosis::EvidenceRow &row : d.evidenceRows) {
                html +=
                    QStringLiteral("<tr><td>%1</td><td></td>")
                        .arg(QStringLiteral("%1 (%2)").arg(row.path, row.entry).toHtmlEscaped());
                for (qsizetype i = 0; i < row.reused.size(); ++i)
                    html += QStringLiteral("<td align=right>&nbsp;&nbsp;%1 / %2</td>")
                                .arg(row.reused.at(i).toHtmlEscaped(),
                                     row.fresh.value(i).toHtmlEscaped());
                html += QStringLiteral("</tr>");
            }
            html += QStringLiteral("</table>");
        }
        html += QStringLiteral("<p>%1</p>").arg(d.caution.toHtmlEscaped());
    }
    setText(html);
    setToolTip(QStringLiteral("Evidence in words:\n") + [this] {
        QStringList lines;
        for (const Diagnosis &d : std::as_const(m_stalls))
            lines << d.evidence;
        return lines.join(QLatin1Char('\n'));
    }());
    show();
}
