#pragma once

#include "diagnosis.h"

#include <QLabel>
#include <QMap>

/// The amber banner of keep-alive stalls, whichever tab shows: per cluster one
/// line in bold ("Keep-alive stall at proxy-0 — clients on kept connections
/// hang; fresh connections answer; engines idle"), then the evidence as a
/// small table (path × fresh / reused, one column per stalled round with its
/// clock time) and what not to conclude. Fed by the keep-alive watch, the probe
/// lab, or the watch of another process read from history. View only.
class StallBanner : public QLabel
{
    Q_OBJECT
public:
    explicit StallBanner(QWidget *parent = nullptr);

    /// Shows (or replaces) `cluster`'s stall.
    void showStall(const QString &cluster, const opsdeck::probes::Diagnosis &diagnosis);
    /// Removes `cluster`'s stall; hides the banner when none is left.
    void clearStall(const QString &cluster);
    void clearAll();
    /// The banner as plain text (tests, copy): empty when hidden.
    QString plainText() const;
    /// The bold first line for `diagnosis`, in plain words.
    static QString headline(const opsdeck::probes::Diagnosis &diagnosis);

private:
    void render();
    QMap<QString, opsdeck::probes::Diagnosis> m_stalls;
};
