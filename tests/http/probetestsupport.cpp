#include "probetestsupport.h"

#include "testsupport.h"

#include <QElapsedTimer>

namespace opsdeck::test {

probes::ProbeRequest getProbe(const QString &baseUrl, const QString &path,
                              probes::ConnectionMode mode)
{
    probes::ProbeRequest request;
    request.kind = probes::ProbeKind::Get;
    request.mode = mode;
    request.url = QUrl(baseUrl + path);
    request.timeoutMs = 10'000;
    return request;
}

probes::ProbeRequest chatProbe(const QString &baseUrl, probes::ProbeKind kind,
                               probes::ConnectionMode mode, int maxTokens)
{
    probes::ProbeRequest request;
    request.kind = kind;
    request.mode = mode;
    request.url = QUrl(baseUrl + QStringLiteral("/v1/chat/completions"));
    request.body = QStringLiteral(R"({"model":"Qwen/Qwen3-8B","messages":[{"role":"user",)"
                                  R"("content":"ping"}],"max_tokens":%1})")
                       .arg(maxTokens)
                       .toUtf8();
    request.timeoutMs = 10'000;
    return request;
}

void idleFor(std::chrono::milliseconds gap)
{
    QElapsedTimer timer;
    timer.start();
    waitUntil([&] { return timer.elapsed() >= gap.count(); }, gap + std::chrono::seconds(1));
}

} // namespace opsdeck::test
