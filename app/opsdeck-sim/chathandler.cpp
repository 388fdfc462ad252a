#include "chathandler.h"

#include "chatrequest.h"
#include "chatresponder.h"
#include "httpserver.h"
#include "kvregistry.h"
#include "logger.h"
#include "pdcounters.h"
#include "scheduler.h"
#include "shutdownflag.h"
#include "textgenerator.h"

#include <algorithm>
#include <chrono>
#include <thread>

namespace opsdeck::sim {

namespace {

void sendError(httplib::Response &res, int status, const std::string &message,
               const std::string &type)
{
    res.status = status;
    res.set_content(ChatResponder::errorBody(message, type, status), "application/json");
}

/// One SSE event; with `split`, in two writes cut mid-JSON 20 ms apart (TCP_NODELAY
/// is on, so each half leaves as its own segment), as a slow proxy may deliver it.
bool writeEvent(httplib::DataSink &sink, const std::string &event, bool split)
{
    if (!split || event.size() < 2)
        return sink.write(event.data(), event.size());
    const size_t half = event.size() / 2;
    if (!sink.write(event.data(), half))
        return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    return sink.write(event.data() + half, event.size() - half);
}

/// --first-token-delay-ms: waits until `until`, in slices so a shutdown is not held up.
/// False when the sim is shutting down.
bool holdFirstToken(std::chrono::steady_clock::time_point until)
{
    while (std::chrono::steady_clock::now() < until) {
        if (ShutdownFlag::triggered())
            return false;
        std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
            until - std::chrono::steady_clock::now(), std::chrono::milliseconds(50)));
    }
    return true;
}

} // namespace

ChatHandler::ChatHandler(const SimOptions &options,
                         std::vector<std::unique_ptr<Scheduler>> &schedulers, KvRegistry *registry,
                         PdCounters &pd, std::function<bool()> ready, PeerAgents *prefills,
                         std::string instanceId)
    : m_options(options), m_schedulers(schedulers), m_registry(registry), m_pd(pd),
      m_ready(std::move(ready)),
      m_receiver(std::chrono::milliseconds(static_cast<long>(options.kvTransferTimeoutS * 1000)),
                 prefills, std::move(instanceId))
{
}

void ChatHandler::handle(const httplib::Request &req, httplib::Response &res)
{
    if (ShutdownFlag::triggered())
        return sendError(res, 503, "The server is shutting down", "ServiceUnavailableError");
    if (!m_ready())
        return sendError(res, 503, "The server is not ready yet", "ServiceUnavailableError");
    std::string error;
    const auto chat = ChatRequest::parse(req.body, error);
    if (!chat)
        return sendError(res, 400, error, "BadRequestError");
    // As SGLang does: a request that cannot fit the context is refused, not
    // left to run for hours.
    if (static_cast<long long>(chat->promptTokens()) + chat->maxTokens() > m_options.maxTotalTokens)
        return sendError(res, 400,
                         "Requested " + std::to_string(chat->promptTokens()) + " prompt + " +
                             std::to_string(chat->maxTokens()) +
                             " completion tokens, more than the context of " +
                             std::to_string(m_options.maxTotalTokens) + " tokens",
                         "BadRequestError");

    using Kind = SimRequest::Kind;
    Kind kind = Kind::Unified;
    if (chat->hasBootstrap() && m_options.role == SimOptions::Role::Prefill)
        kind = Kind::PrefillOnly;
    else if (chat->hasBootstrap() && m_options.role == SimOptions::Role::Decode)
        kind = Kind::DecodeOnly;
    const int dp = static_cast<int>(m_schedulers.size());
    const int rank = chat->hasBootstrap() ? static_cast<int>(chat->bootstrapRoom() % dp)
                                          : static_cast<int>(m_nextRank++ % dp);

    if (kind == Kind::DecodeOnly && !receiveKv(*chat, rank, res))
        return;
    // In PD mode the prefill answers with its one token; the router ignores it.
    const int maxTokens = kind == Kind::PrefillOnly ? 1 : chat->maxTokens();
    auto request =
        std::make_shared<SimRequest>(chat->promptTokens(), maxTokens, kind, chat->stream());
    if (kind == Kind::PrefillOnly && m_registry) {
        m_registry->registerRoom(chat->bootstrapRoom(), rank);
        KvRegistry *registry = m_registry;
        const std::uint64_t room = chat->bootstrapRoom();
        const int prompt = chat->promptTokens();
        request->onPrefilled = [registry, room, prompt] { registry->markPrefilled(room, prompt); };
    }
    if (!m_schedulers[static_cast<size_t>(rank)]->submit(request)) {
        roomFailer(*chat, request)();
        return sendError(res, 503, "The server is shutting down", "ServiceUnavailableError");
    }
    if (chat->stream())
        respondStream(*chat, request, res);
    else
        respondWhole(*chat, request, res);
}

bool ChatHandler::receiveKv(const ChatRequest &chat, int rank, httplib::Response &res)
{
    PdCounters::Rank &counters = m_pd.rank(rank);
    ++counters.decodePrealloc;
    bool inTransfer = false;
    const auto result = m_receiver.receive(
        chat.bootstrapHost(), chat.bootstrapPort(), chat.bootstrapRoom(),
        [&] {
            --counters.decodePrealloc;
            ++counters.decodeTransfer;
            inTransfer = true;
        },
        [] { return !ShutdownFlag::triggered() && HttpServer::currentClientConnected(); });
    if (inTransfer)
        --counters.decodeTransfer;
    else
        --counters.decodePrealloc;
    counters.lastKvLatencyMs = result.waitedMs;

    const std::string room = std::to_string(chat.bootstrapRoom());
    switch (result.outcome) {
    case KvReceiver::Outcome::Ready:
        return true;
    case KvReceiver::Outcome::BootstrapFailed:
        ++counters.bootstrapFailed;
        Logger::warn("bootstrap failed for room " + room + ": " + result.detail);
        sendError(res, 500, "KV bootstrap failed: " + result.detail, "InternalServerError");
        return false;
    case KvReceiver::Outcome::TransferFailed:
        ++counters.transferFailed;
        Logger::warn("KV transfer failed for room " + room + ": " + result.detail);
        sendError(res, 500, "KV transfer failed: " + result.detail, "InternalServerError");
        return false;
    case KvReceiver::Outcome::Aborted:
        sendError(res, 503, "Request aborted: " + result.detail, "ServiceUnavailableError");
        return false;
    }
    return false;
}

std::function<void()> ChatHandler::roomFailer(const ChatRequest &chat,
                                              const std::shared_ptr<SimRequest> &request) const
{
    KvRegistry *registry = m_registry;
    const std::uint64_t room = chat.bootstrapRoom();
    const bool pdPrefill = request->kind() == SimRequest::Kind::PrefillOnly && registry;
    // A prefill request that never completed must fail its room, or the
    // decode would wait for that KV until its timeout.
    return [registry, room, pdPrefill, request] {
        if (pdPrefill && !request->finished())
            registry->markFailed(room);
    };
}

void ChatHandler::respondWhole(const ChatRequest &chat, const std::shared_ptr<SimRequest> &request,
                               httplib::Response &res)
{
    int generated = 0;
    while (!request->done()) {
        generated = request->waitForProgress(generated, std::chrono::milliseconds(200));
        if (!request->done() && !HttpServer::currentClientConnected()) {
            request->cancel(); // the client hung up: leave the batch, like SGLang's abort
            request->waitForProgress(request->maxTokens(), std::chrono::seconds(5));
            break;
        }
    }
    roomFailer(chat, request)();
    if (!request->finished())
        return sendError(res, 503, "Request aborted", "ServiceUnavailableError");
    const std::string model = chat.model().empty() ? m_options.servedModelName : chat.model();
    ChatResponder responder(model);
    const int tokens = request->generated();
    res.set_content(
        responder.completion(TextGenerator::text(chat.seed(), tokens), chat.promptTokens(), tokens),
        "application/json");
}

void ChatHandler::respondStream(const ChatRequest &chat, const std::shared_ptr<SimRequest> &request,
                                httplib::Response &res)
{
    struct StreamState
    {
        ChatResponder responder;
        bool roleSent = false;
        int sent = 0;
        std::chrono::steady_clock::time_point roleSentAt{};
    };
    const std::string model = chat.model().empty() ? m_options.servedModelName : chat.model();
    auto state = std::make_shared<StreamState>(StreamState{ChatResponder(model)});
    const std::uint64_t seed = chat.seed();
    const int promptTokens = chat.promptTokens();
    const bool includeUsage = chat.includeUsage();

    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [state, request, seed, promptTokens, includeUsage,
         options = &m_options](size_t, httplib::DataSink &sink) {
            auto send = [&](const std::string &event) {
                if (writeEvent(sink, event, options->streamSplitEvents))
                    return true;
                request->cancel(); // client gone: the request leaves the batch
                return false;
            };
            if (!state->roleSent) {
                state->roleSent = true;
                state->roleSentAt = std::chrono::steady_clock::now();
                if (!send(state->responder.roleChunk()))
                    return false;
                return !options->streamEmptyFirstChunk || send(state->responder.contentChunk(""));
            }
            if (state->sent == 0 &&
                !holdFirstToken(state->roleSentAt +
                                std::chrono::milliseconds(options->firstTokenDelayMs))) {
                request->cancel();
                return false;
            }
            const int generated =
                request->waitForProgress(state->sent, std::chrono::milliseconds(100));
            if (!sink.is_writable()) {
                request->cancel();
                return false;
            }
            for (; state->sent < generated; ++state->sent) {
                if (!send(state->responder.contentChunk(TextGenerator::token(seed, state->sent))))
                    return false;
            }
            if (request->finished() && state->sent >= request->generated()) {
                if (!send(state->responder.finishChunk()) ||
                    (includeUsage &&
                     !send(state->responder.usageChunk(promptTokens, state->sent))) ||
                    !send(ChatResponder::doneEvent()))
                    return false;
                sink.done();
            } else if (request->aborted()) {
                send(ChatResponder::errorEvent("Request aborted", "ServiceUnavailableError", 503));
                send(ChatResponder::doneEvent());
                sink.done();
            }
            return true;
        },
        [request, fail = roomFailer(chat, request)](bool) {
            if (!request->done())
                request->cancel();
            fail();
        });
}

} // namespace opsdeck::sim
