#pragma once

#include "batchcheckresult.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace opsdeck::probes {

/// One stage of a staged verification: health → one end-to-end probe →
/// keep-alive through the client's path → the batch check. Plain data, any thread.
struct VerificationStage
{
    QString name; ///< "health", "end-to-end", "keep-alive", "batch-check"
    /// The pass criterion in words, shown before the stage runs, e.g.
    /// "every service of cluster pd answers GET its health path with 200".
    QString criterion;
    bool ran = false;       ///< false: not run, an earlier stage failed (or the run was refused)
    bool passed = false;    ///< the criterion held
    bool cancelled = false; ///< the run was cancelled during this stage: not judged
    qint64 startedAtMs = 0; ///< ms since the Unix epoch; 0 when not run
    double ms = 0;          ///< how long the stage took, ms
    /// What was seen, one line: per-service statuses and times, the probe's
    /// status, time and content length, the batch verdict with its numbers.
    QString detail;
};

/// What a staged verification found (StagedVerification::run).
struct VerificationResult
{
    QString cluster;
    qint64 startedAtMs = 0; ///< ms since the Unix epoch
    double ms = 0;          ///< the whole run, ms
    bool passed = false;    ///< every stage ran and passed
    /// Every planned stage, in order (four, or three when the keep-alive stage
    /// was skipped); those after the first failure have ran == false.
    QVector<VerificationStage> stages;
    /// Why nothing ran (no such cluster, refused by the production guard); empty otherwise.
    QString error;
    /// Refused: a service of the cluster is tagged production and the
    /// confirmation did not name the cluster (the batch check loads it).
    bool confirmationRequired = false;
    bool cancelled = false;
    /// The keep-alive stage was left out on request (`--skip-keepalive`).
    bool keepAliveSkipped = false;
    /// The batch-check stage's full result (verdict None when stage 3 did not run).
    BatchCheckResult batch;

    /// The stage named `name`; nullptr when it was not planned.
    const VerificationStage *stage(const QString &name) const
    {
        for (const VerificationStage &s : stages)
            if (s.name == name)
                return &s;
        return nullptr;
    }
    /// True when the batch-check stage ran (`batch` holds its result).
    bool batchRan() const
    {
        const VerificationStage *batchStage = stage(QStringLiteral("batch-check"));
        return batchStage && batchStage->ran;
    }

    /// Index of the first stage that ran and failed; -1 when none did.
    int failedStage() const
    {
        for (int i = 0; i < stages.size(); ++i)
            if (stages[i].ran && !stages[i].passed)
                return i;
        return -1;
    }
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::VerificationStage)
Q_DECLARE_METATYPE(opsdeck::probes::VerificationResult)
