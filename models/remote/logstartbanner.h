#pragma once

#include <QList>
#include <QRegularExpression>
#include <QString>

namespace opsdeck::remote {

/// A line a serving process writes once when it starts: the "since restart"
/// view of a log shows from the last such line on.
struct LogStartBanner
{
    QString name;               ///< for messages, e.g. "SGLang server_args=ServerArgs("
    QRegularExpression pattern; ///< matched against a line's shown text

    /// The defaults:
    /// - SGLang: `server_args=ServerArgs(` (launch_server logs its arguments first);
    /// - vLLM: `vLLM API server version` (the OpenAI API server's first line);
    /// - opsdeck-sim: `YYYY-MM-DD HH:MM:SS.mmm INFO ROLE: listening on http(s)://`,
    ///   its first line at start (app/opsdeck-sim/logger.h, engineservice.cpp); the
    ///   router's second line "metrics listening on" does not match. The demo's
    ///   start commands append the sim's stderr to the log (`>>LOG 2>&1`,
    ///   resources/demo/inventory.yaml), so one file holds every run.
    static QList<LogStartBanner> defaults();
    static QList<QRegularExpression> patterns(const QList<LogStartBanner> &banners);
};

} // namespace opsdeck::remote
