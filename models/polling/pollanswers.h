#pragma once

#include "loadsample.h"
#include "metricssnapshot.h"
#include "servicestatus.h"

#include <QMetaType>
#include <QVector>

namespace opsdeck::probes {

/// The results ServicePoller made of one batch of the probe engine's answers
/// (ServicePoller::answered): the same values its statusChecked, loadSampled
/// and metricsSampled signals carry one by one, each list in the order the
/// answers came. A receiver on another thread takes a batch in one queued call;
/// one call per result (about 190 a second with 64 engines, times each
/// receiver) cost the GUI thread more than showing them (run_poll_bench.sh).
/// Plain data; safe to copy across threads (implicitly shared lists).
struct PollAnswers
{
    QVector<ServiceStatus> statuses;    ///< health checks
    QVector<LoadSample> loads;          ///< decode batch sizes read
    QVector<MetricsSnapshot> snapshots; ///< /metrics scrapes, failed ones included

    bool isEmpty() const { return statuses.isEmpty() && loads.isEmpty() && snapshots.isEmpty(); }
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::PollAnswers)
