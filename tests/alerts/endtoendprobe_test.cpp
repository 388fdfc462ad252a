// EndToEndProbe with the entry service's `http:` settings: the API key read
// from the real keyring (packaging/test.sh runs the tests in a D-Bus session
// with gnome-keyring) reaches a sim started with --api-key; a key missing
// from the store fails the probe with the reason and sends nothing; the key
// never shows in the log or the result. A 200 cut short (BadHttpServer) is a
// failure, not an empty model list.
#include "badhttpserver.h"
#include "endtoendprobe.h"
#include "secretstore.h"
#include "simprocess.h"
#include "testsupport.h"

#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <sstream>

using namespace opsdeck;
using namespace std::chrono_literals;
using test::SimProcess;
using test::waitUntil;

namespace {

const QByteArray apiKey = QByteArrayLiteral("sk-opsdeck-e2e-5d81b0c4");

/// Routes spdlog into a string for the life of the object.
class LogCapture
{
public:
    LogCapture() : m_previous(spdlog::default_logger())
    {
        spdlog::set_default_logger(std::make_shared<spdlog::logger>(
            "capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(m_text)));
    }
    ~LogCapture() { spdlog::set_default_logger(m_previous); }
    std::string text() const { return m_text.str(); }

private:
    std::ostringstream m_text;
    std::shared_ptr<spdlog::logger> m_previous;
};

alerts::EndToEndResult probeOnce(const inventory::Service &entry)
{
    alerts::EndToEndProbe::Settings settings;
    settings.intervalMs = 0;
    alerts::EndToEndProbe probe(QStringLiteral("keyed"), entry, settings);
    std::optional<alerts::EndToEndResult> result;
    QObject::connect(&probe, &alerts::EndToEndProbe::probeFinished, &probe,
                     [&result](const alerts::EndToEndResult &r) { result = r; });
    probe.start();
    waitUntil([&] { return result.has_value(); }, 20s);
    return result.value_or(alerts::EndToEndResult{});
}

} // namespace

TEST(EndToEndProbeHttp, SendsTheEntrysApiKeyFromTheKeyringAndNeverLogsIt)
{
    SimProcess engine;
    ASSERT_TRUE(engine.start(test::simArgs(
        QStringLiteral("engine"), {QStringLiteral("--api-key"), QString::fromLatin1(apiKey)})))
        << engine.errorText().toStdString();
    inventory::Service entry;
    entry.name = QStringLiteral("e2e-keyed-engine");
    entry.role = inventory::Role::Engine;
    entry.url = QUrl(engine.url());
    LogCapture log;

    // Without any key configured the server refuses, and the alert would say why.
    const alerts::EndToEndResult refused = probeOnce(entry);
    EXPECT_FALSE(refused.ok);
    EXPECT_EQ(refused.error, QStringLiteral("GET /v1/models: HTTP 401: Unauthorized"));

    // Configured but not in the store: nothing is sent without it.
    entry.http.apiKeySecret = secrets::SecretStore::httpApiKeyName(entry.name);
    secrets::SecretStore &store = secrets::SecretStore::shared();
    ASSERT_TRUE(store.removeBlocking(entry.http.apiKeySecret).ok());
    const alerts::EndToEndResult missing = probeOnce(entry);
    EXPECT_FALSE(missing.ok);
    EXPECT_EQ(missing.httpStatus, 0);
    EXPECT_TRUE(missing.error.contains(QStringLiteral("is not in the secret store")))
        << missing.error.toStdString();

    ASSERT_TRUE(store.writeBlocking(entry.http.apiKeySecret, apiKey).ok())
        << "the tests run with gnome-keyring in a D-Bus session (packaging/test.sh)";
    const alerts::EndToEndResult good = probeOnce(entry);
    EXPECT_TRUE(good.ok) << good.error.toStdString();
    EXPECT_EQ(good.httpStatus, 200);
    EXPECT_EQ(log.text().find(apiKey.toStdString()), std::string::npos);
    EXPECT_FALSE(good.error.contains(QString::fromLatin1(apiKey)));
    store.removeBlocking(entry.http.apiKeySecret);
}

TEST(EndToEndProbeHttp, AnAnswerCutAfterItsStatusLineFailsTheProbe)
{
    // HTTP 200 with Content-Length 10,000, then 100 bytes and a close.
    test::BadHttpServer server(test::BadHttpServer::Mode::Truncated);
    ASSERT_TRUE(server.start());
    inventory::Service entry;
    entry.name = QStringLiteral("e2e-cut-engine");
    entry.role = inventory::Role::Engine;
    entry.url = QUrl(QString::fromStdString(server.url()));
    const alerts::EndToEndResult cut = probeOnce(entry);
    EXPECT_FALSE(cut.ok);
    EXPECT_EQ(cut.httpStatus, 200);
    EXPECT_TRUE(cut.error.startsWith(QStringLiteral("GET /v1/models: HTTP 200, then ")))
        << cut.error.toStdString();
}
