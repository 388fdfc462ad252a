#pragma once

#include "workflowrunner.h"

#include <QElapsedTimer>
#include <QSet>
#include <QStringList>
#include <QTimer>

namespace opsdeck::workflows {

/// A leaf while it runs: its step, its deadline, what it saw, and how to
/// stop what it started. Private to WorkflowRunner (both of its files).
struct WorkflowRunner::Leaf
{
    const WorkflowStep *step = nullptr;
    const inventory::Service *service = nullptr; ///< the step's service, when it has one
    Done done;
    QElapsedTimer clock;
    QTimer *deadline = nullptr;
    bool ended = false;
    bool busy = false;          ///< a poll is in flight
    QStringList output;         ///< lines it said, for the audit entry's tail
    QString lastSeen;           ///< the latest observation, said when the deadline passes
    qint64 markerId = 0;        ///< the history marker the step wrote (its audit entry says it)
    QSet<QString> reRegistered; ///< RouterReady: workers removed and added again
    bool confirming = false;    ///< confirmServing() is asking the host
    /// Stops what the action started (called once when the leaf ends).
    std::function<void()> cancelAction;
};

/// "HTTP 503", the error, or "no answer": what a check saw.
QString seen(const probes::ProbeResult &result);
/// The same server: scheme, host, port and path (a trailing "/" aside).
bool sameEndpoint(const QUrl &a, const QUrl &b);
/// `router`'s `/workers/{id}`, the id one percent-encoded path segment.
QUrl workerUrl(const inventory::Service &router, const QString &id);

} // namespace opsdeck::workflows
