#pragma once

#include "batchverdict.h"

#include <QMetaType>
#include <QString>
#include <QVector>

namespace opsdeck::probes {

/// One request of a batch check, as it ended. Every submitted request has
/// one, failed or not: a request is reported, never lost.
struct BatchRequestOutcome
{
    int index = 0;  ///< 0..n-1, submission order
    int status = 0; ///< HTTP status; 0 when no response came
    /// ms from the request's start to its first content token (ProbeResult::ttftMs);
    /// -1 when no content token came.
    double ttftMs = -1;
    double totalMs = 0;     ///< the request's whole time, ms (curl time_total)
    double endOffsetMs = 0; ///< when it ended, ms after the batch was submitted
    int localPort = 0;      ///< its connection (each request is a fresh connection)
    QString error;          ///< why it failed; empty when it got 2xx and a content token

    bool ok() const { return error.isEmpty(); }
};

/// Decode running requests at one moment of the batch, for the chart.
struct RunningSample
{
    qint64 offsetMs = 0; ///< ms after the batch was submitted (when the sample was asked for)
    double running = 0;  ///< running requests summed over the cluster's decode services
};

/// What a batch check found (BatchCheck::run). Plain data, any thread.
struct BatchCheckResult
{
    QString cluster;      ///< inventory cluster name
    QString path;         ///< ProbePath::name the requests took ("router direct"...)
    QString entryService; ///< the service the requests entered at
    QString model;        ///< model name sent (from the entry's /v1/models)
    qint64 startedAtMs =
        0;             ///< when the check started (the single request), ms since the Unix epoch
    int n = 0;         ///< concurrent requests asked for
    int maxTokens = 0; ///< max_tokens of each request
    /// The verdict; None when `error` is set.
    BatchVerdict verdict = BatchVerdict::None;
    /// The verdict with its numbers (batchVerdictReason()), or the error.
    QString reason;
    /// Why there is no verdict: refused by the production guard, no path,
    /// the single request failed, no running sample could be read, every
    /// request failed, cancelled. Empty when a verdict was reached.
    QString error;
    /// The path itself failed: the single request failed, or every request of
    /// the batch did (the CLI's exit 1, where other errors are "unknown").
    bool pathFailed = false;
    /// Refused because a service on the path or in the cluster is tagged
    /// production and the confirmation did not name the cluster.
    bool confirmationRequired = false;
    double singleS = 0;                    ///< total time of the one request sent alone first, s
    double wallS = 0;                      ///< batch submission to its last answer, s
    double peakRunning = -1;               ///< max of `samples`, requests; -1 when none was read
    QVector<BatchRequestOutcome> requests; ///< all n, by index (empty when the batch did not run)
    int failures = 0;                      ///< requests whose outcome is not ok()
    QVector<RunningSample> samples;        ///< decode running requests, every ~250 ms, oldest first
    QString samplesSource;                 ///< "/v1/loads" or "/metrics"; empty when none was read
    /// A timeout ended the run: the batch deadline (unfinished requests failed),
    /// or the single request / GET /v1/models hit singleTimeoutMs.
    bool timedOut = false;
    bool cancelled = false; ///< cancel() ended it

    /// The q-quantile (0..1, nearest rank) of the requests' TTFT, ms; -1 when
    /// no request has one.
    double ttftPercentileMs(double q) const;

    /// One line for people, the same in the CLI, the window and history markers:
    /// "batch check pd: BATCHED, peak 64 of 64 running; 64 requests in 4.19 s, 20×
    /// faster than one after another (single 1.33 s)", failures appended; without a
    /// verdict "batch check pd: not measured: <error>" — never a wall or single of 0.
    QString summary() const;
};

} // namespace opsdeck::probes

Q_DECLARE_METATYPE(opsdeck::probes::BatchCheckResult)
