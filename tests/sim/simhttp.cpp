#include "simhttp.h"

#include "testsupport.h"

#include <QJsonDocument>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sstream>
#include <thread>

namespace opsdeck::test {

namespace {

using Clock = std::chrono::steady_clock;

std::unique_ptr<httplib::Client> client(int port, int timeoutS)
{
    auto c = std::make_unique<httplib::Client>("127.0.0.1", port);
    c->set_connection_timeout(std::chrono::seconds(5));
    c->set_read_timeout(std::chrono::seconds(timeoutS));
    c->set_keep_alive(true);
    // httplib writes headers and body separately: without TCP_NODELAY, Nagle and
    // the peer's delayed ACK add 40 ms to every POST.
    c->set_tcp_nodelay(true);
    return c;
}

HttpReply toReply(const httplib::Result &result, Clock::time_point start)
{
    HttpReply reply;
    reply.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    if (!result) {
        reply.error = httplib::to_string(result.error());
        return reply;
    }
    reply.status = result->status;
    reply.body = result->body;
    reply.headers = result->headers;
    return reply;
}

} // namespace

HttpReply httpGet(int port, const std::string &path, int timeoutS)
{
    const auto start = Clock::now();
    return toReply(client(port, timeoutS)->Get(path), start);
}

HttpReply httpPost(int port, const std::string &path, const std::string &body, int timeoutS)
{
    const auto start = Clock::now();
    return toReply(client(port, timeoutS)->Post(path, body, "application/json"), start);
}

HttpReply httpDelete(int port, const std::string &path, int timeoutS)
{
    const auto start = Clock::now();
    return toReply(client(port, timeoutS)->Delete(path), start);
}

std::string chatBody(int maxTokens, bool stream, const std::string &content, bool includeUsage)
{
    std::string body = R"({"model":"test-model","messages":[{"role":"user","content":")" + content +
                       R"("}],"max_tokens":)" + std::to_string(maxTokens);
    if (stream)
        body += R"(,"stream":true)";
    if (includeUsage)
        body += R"(,"stream_options":{"include_usage":true})";
    return body + "}";
}

QJsonObject jsonObject(const std::string &body)
{
    return QJsonDocument::fromJson(QByteArray::fromStdString(body)).object();
}

double metricValue(const std::string &page, const std::string &name,
                   const std::vector<std::string> &labels)
{
    std::istringstream lines(page);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(name, 0) != 0 || line.size() <= name.size())
            continue;
        const char next = line[name.size()];
        if (next != '{' && next != ' ')
            continue;
        bool all = true;
        for (const std::string &label : labels)
            all = all && line.find(label) != std::string::npos;
        if (all)
            return std::stod(line.substr(line.rfind(' ') + 1));
    }
    return std::nan("");
}

int sampleCount(const std::string &page, const std::string &name)
{
    std::istringstream lines(page);
    std::string line;
    int count = 0;
    while (std::getline(lines, line)) {
        if (line.rfind(name, 0) == 0 && line.size() > name.size() &&
            (line[name.size()] == '{' || line[name.size()] == ' '))
            ++count;
    }
    return count;
}

int totalRunning(int port)
{
    const HttpReply reply = httpGet(port, "/v1/loads", 5);
    if (reply.status != 200)
        return -1;
    const QJsonObject aggregate =
        jsonObject(reply.body).value(QStringLiteral("aggregate")).toObject();
    return aggregate.value(QStringLiteral("total_running_reqs")).toInt(-1);
}

BatchRun runBatch(int port, int n, int maxTokens, int loadsPort, const std::string &content)
{
    BatchRun run;
    std::vector<std::unique_ptr<httplib::Client>> clients;
    for (int i = 0; i < n; ++i) {
        clients.push_back(client(port, 120));
        const auto warm = clients.back()->Get("/health");
        if (!warm || warm->status != 200)
            ++run.failed;
    }
    if (run.failed)
        return run;

    std::mutex mutex;
    std::condition_variable go;
    bool released = false;
    std::atomic<int> done{0};
    std::atomic<int> ok{0};
    std::vector<double> finishedAt(static_cast<size_t>(n), 0.0);
    const std::string body = chatBody(maxTokens, false, content);
    Clock::time_point start;
    std::vector<std::thread> threads;
    for (int i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            {
                std::unique_lock lock(mutex);
                go.wait(lock, [&] { return released; });
            }
            const auto res = clients[static_cast<size_t>(i)]->Post("/v1/chat/completions", body,
                                                                   "application/json");
            finishedAt[static_cast<size_t>(i)] =
                std::chrono::duration<double>(Clock::now() - start).count();
            if (res && res->status == 200) {
                const QJsonObject usage =
                    jsonObject(res->body).value(QStringLiteral("usage")).toObject();
                if (usage.value(QStringLiteral("completion_tokens")).toInt() == maxTokens)
                    ++ok;
            }
            ++done;
        });
    }
    {
        std::lock_guard lock(mutex);
        start = Clock::now();
        released = true;
    }
    go.notify_all();
    waitUntil(
        [&] {
            if (loadsPort > 0 && done < n)
                run.peakRunning = std::max(run.peakRunning, totalRunning(loadsPort));
            return done == n;
        },
        std::chrono::seconds(120));
    for (auto &thread : threads)
        thread.join();
    for (const double t : finishedAt)
        run.wallS = std::max(run.wallS, t);
    run.ok = ok;
    run.failed = n - ok;
    return run;
}

} // namespace opsdeck::test
