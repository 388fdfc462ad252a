#pragma once

#include <QJsonObject>
#include <httplib.h>
#include <string>
#include <vector>

namespace opsdeck::test {

/// One HTTP exchange with a sim on 127.0.0.1 (blocking, own connection).
struct HttpReply
{
    int status = -1; ///< -1: no answer (see error)
    std::string body;
    std::string error;
    httplib::Headers headers;
    double seconds = 0; ///< wall time of the exchange
};

HttpReply httpGet(int port, const std::string &path, int timeoutS = 10);
HttpReply httpPost(int port, const std::string &path, const std::string &body, int timeoutS = 120);
HttpReply httpDelete(int port, const std::string &path, int timeoutS = 10);

/// A chat completion request body with one user message.
std::string chatBody(int maxTokens, bool stream = false, const std::string &content = "hi",
                     bool includeUsage = false);
QJsonObject jsonObject(const std::string &body);

/// Value of the first sample of `name` whose label text contains every
/// `labels` entry (e.g. `dp_rank="1"`); NaN when there is none.
double metricValue(const std::string &page, const std::string &name,
                   const std::vector<std::string> &labels = {});
/// Number of sample lines of exactly `name` (labels or not).
int sampleCount(const std::string &page, const std::string &name);

/// aggregate.total_running_reqs of GET /v1/loads; -1 when unreadable.
int totalRunning(int port);

/// Outcome of runBatch().
struct BatchRun
{
    double wallS = 0; ///< release of the requests to the last answer
    int ok = 0;       ///< answers with status 200 and the expected usage
    int failed = 0;
    int peakRunning = -1; ///< max total_running_reqs sampled meanwhile (-1: not sampled)
};

/// Sends `n` concurrent non-streaming chat completions with `maxTokens` to
/// `port`, each on its own kept-alive connection opened beforehand (so
/// connects do not skew the timing), and samples /v1/loads of `loadsPort`
/// (when > 0) while they run. Bounded by a 120 s deadline.
BatchRun runBatch(int port, int n, int maxTokens, int loadsPort = -1,
                  const std::string &content = "hi");

} // namespace opsdeck::test
