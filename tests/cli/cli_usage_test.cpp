// opsdeck-cli's exit-code contract on bad input, and metrics summarize on
// real fixture pages (tests/data/metrics, copied from ../shared/fixtures).
#include "clitest.h"
#include "testsupport.h"

#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <gtest/gtest.h>
#include <httplib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <thread>

using opsdeck::test::dataPath;
using opsdeck::test::runCli;

TEST(CliUsage, NoCommandOrAnUnknownOneIsBadInput)
{
    EXPECT_EQ(runCli({}).exitCode, 2);
    const auto unknown = runCli({QStringLiteral("frobnicate")});
    EXPECT_EQ(unknown.exitCode, 2);
    EXPECT_TRUE(unknown.standardError.contains("unknown command 'frobnicate'"));
    EXPECT_EQ(runCli({QStringLiteral("--help")}).exitCode, 0);
    EXPECT_EQ(runCli({QStringLiteral("status"), QStringLiteral("--no-such-flag")}).exitCode, 2);
}

TEST(CliUsage, StatusNeedsAReadableValidInventory)
{
    EXPECT_EQ(runCli({QStringLiteral("status")}).exitCode, 2);

    const auto missing = runCli({QStringLiteral("status"), QStringLiteral("--inventory"),
                                 QStringLiteral("/nonexistent/inventory.yaml")});
    EXPECT_EQ(missing.exitCode, 2);
    EXPECT_TRUE(missing.standardError.contains("/nonexistent/inventory.yaml"))
        << missing.standardError.toStdString();

    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.yaml"));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(
        "hosts:\n  - {name: local, kind: local}\nservices:\n  - name: decode\n    role: decoder\n"
        "    host: local\n    url: http://127.0.0.1:1\n");
    file.close();
    const auto bad = runCli({QStringLiteral("status"), QStringLiteral("--inventory"), path});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.standardError.contains((path + QStringLiteral(":5:")).toUtf8()))
        << bad.standardError.toStdString();
    EXPECT_TRUE(bad.standardError.contains("decoder"));
}

TEST(CliUsage, StatusOfAServiceNobodyServesIsUnhealthy)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("inv.yaml"));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(
        QStringLiteral("hosts:\n  - {name: local, kind: local}\nservices:\n  - name: decode\n"
                       "    role: decode\n    host: local\n    url: http://127.0.0.1:%1\n")
            .arg(opsdeck::test::freeTcpPort())
            .toUtf8());
    file.close();
    const auto run = runCli(
        {QStringLiteral("status"), QStringLiteral("--inventory"), path, QStringLiteral("--json")});
    EXPECT_EQ(run.exitCode, 1);
    const QJsonArray services = run.json().object().value(QStringLiteral("services")).toArray();
    ASSERT_EQ(services.size(), 1);
    EXPECT_EQ(services[0].toObject().value(QStringLiteral("name")).toString(),
              QStringLiteral("decode"));
    EXPECT_EQ(services[0].toObject().value(QStringLiteral("state")).toString(),
              QStringLiteral("down"));
}

// The hostile inventory that once took 42.5 s and 5.9 GB: a 1 MB anchored
// string and 3,000 aliases to it. Refused with file:line:column in under a
// second and 100 MB (the children's peak resident size, from the kernel).
TEST(CliUsage, AHostileInventoryOfAliasesCostsNothing)
{
    QTemporaryDir dir;
    QByteArray yaml = "anchor: &a \"" + QByteArray(1000 * 1000, 'A') +
                      "\"\nhosts:\n  - {name: local, kind: local}\nservices:\n  - name: x\n    "
                      "role: engine\n    host: local\n    url: http://127.0.0.1:1\n    tags: [*a";
    for (int i = 1; i < 3000; ++i)
        yaml += ", *a";
    yaml += "]\n";
    const QString path = dir.filePath(QStringLiteral("hostile.yaml"));
    ASSERT_TRUE(opsdeck::test::writeFile(path, yaml));
    QElapsedTimer timer;
    timer.start();
    const auto run = runCli({QStringLiteral("status"), QStringLiteral("--inventory"), path});
    const qint64 elapsedMs = timer.elapsed();
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_TRUE(run.standardError.contains(QByteArray(path.toUtf8() + ":1:")))
        << run.standardError.toStdString();
    EXPECT_TRUE(run.standardError.contains("counting each alias as a copy"))
        << run.standardError.toStdString();
    EXPECT_LT(elapsedMs, 1000);
    rusage usage{};
    ASSERT_EQ(::getrusage(RUSAGE_CHILDREN, &usage), 0);
    EXPECT_LT(usage.ru_maxrss, 100 * 1024) << "kB";
}

TEST(CliMetrics, SummarizesTheSglangDocsPage)
{
    const auto run =
        runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                dataPath(QStringLiteral("metrics/01-sglang_docs_production_metrics_example.prom")),
                QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject summary = run.json().object();
    // Values as written in the fixture.
    EXPECT_EQ(summary.value(QStringLiteral("running")).toDouble(), 162);
    EXPECT_EQ(summary.value(QStringLiteral("waiting")).toDouble(), 2826);
    EXPECT_DOUBLE_EQ(summary.value(QStringLiteral("kv_usage")).toDouble(), 0.28);
    EXPECT_EQ(summary.value(QStringLiteral("generation_tokens_total")).toDouble(), 7557572);
    EXPECT_EQ(summary.value(QStringLiteral("prompt_tokens_total")).toDouble(), 8128902);
    EXPECT_EQ(summary.value(QStringLiteral("families")).toInt(), 12);
    EXPECT_TRUE(summary.value(QStringLiteral("warnings")).toArray().isEmpty());
}

TEST(CliMetrics, AbsentValuesAreNullAndVllmRunningIsRead)
{
    const auto run = runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                             dataPath(QStringLiteral("metrics/04-vllm_metrics_examples.prom")),
                             QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0);
    const QJsonObject summary = run.json().object();
    EXPECT_EQ(summary.value(QStringLiteral("running")).toDouble(), 8);
    EXPECT_EQ(summary.value(QStringLiteral("generation_tokens_total")).toDouble(), 27453);
    EXPECT_TRUE(summary.value(QStringLiteral("prompt_tokens_total")).isNull());
    EXPECT_TRUE(summary.value(QStringLiteral("waiting")).isNull());
}

TEST(CliMetrics, GarbageGivesLineNumberedWarningsAndExitOne)
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("garbage.prom"));
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write("<html>\n\xff\xfe garbage {{\n");
    file.close();
    const auto run = runCli(
        {QStringLiteral("metrics"), QStringLiteral("summarize"), path, QStringLiteral("--json")});
    EXPECT_EQ(run.exitCode, 1);
    const QJsonArray warnings = run.json().object().value(QStringLiteral("warnings")).toArray();
    ASSERT_FALSE(warnings.isEmpty());
    EXPECT_EQ(warnings[0].toObject().value(QStringLiteral("line")).toInt(), 1);
    EXPECT_FALSE(warnings[0].toObject().value(QStringLiteral("reason")).toString().isEmpty());
    EXPECT_TRUE(run.json().object().value(QStringLiteral("running")).isNull());
}

TEST(CliMetrics, MissingFileIsBadInputAndDeadUrlFails)
{
    EXPECT_EQ(runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                      QStringLiteral("/nonexistent.prom")})
                  .exitCode,
              2);
    const auto dead =
        runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                QStringLiteral("http://127.0.0.1:%1/metrics").arg(opsdeck::test::freeTcpPort())});
    EXPECT_EQ(dead.exitCode, 1);
    EXPECT_TRUE(dead.standardError.contains("127.0.0.1")) << dead.standardError.toStdString();
    EXPECT_EQ(runCli({QStringLiteral("metrics"), QStringLiteral("frobnicate"), QStringLiteral("x")})
                  .exitCode,
              2);
}

TEST(CliMetrics, MalformedUrlsAndNonRegularFilesAreBadInput)
{
    for (const char *url :
         {"http://127.0.0.1:99999/metrics", "http://", "ftp://127.0.0.1/metrics", "http://[::1"}) {
        const auto run = runCli(
            {QStringLiteral("metrics"), QStringLiteral("summarize"), QString::fromLatin1(url)});
        EXPECT_EQ(run.exitCode, 2) << url << ": " << run.standardError.toStdString();
    }
    const auto secret = runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                                QStringLiteral("http://ops:hunter2@127.0.0.1:%1/metrics")
                                    .arg(opsdeck::test::freeTcpPort())});
    EXPECT_EQ(secret.exitCode, 1);
    EXPECT_FALSE(secret.standardError.contains("hunter2"))
        << "a password in the URL must not be printed";

    QTemporaryDir dir;
    const QString fifo = dir.filePath(QStringLiteral("page.fifo"));
    ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    const auto run = runCli({QStringLiteral("metrics"), QStringLiteral("summarize"), fifo}, {},
                            std::chrono::seconds(10));
    EXPECT_EQ(run.exitCode, 2) << "a FIFO would block the read forever";
    EXPECT_TRUE(run.standardError.contains("not a regular file"));
}

// A page fetched from a URL is read by its Content-Type (an OpenMetrics page
// cut before its `# EOF` says so), and no output shows the URL's password.
TEST(CliMetrics, AServedPageIsReadByItsContentTypeAndNoPasswordIsPrinted)
{
    httplib::Server server;
    server.Get("/metrics", [](const httplib::Request &, httplib::Response &res) {
        res.set_content("# TYPE a gauge\na 1\n",
                        "application/openmetrics-text; version=1.0.0; charset=utf-8");
    });
    const int port = server.bind_to_any_port("127.0.0.1");
    ASSERT_GT(port, 0);
    std::thread thread([&server] { server.listen_after_bind(); });
    const QString url = QStringLiteral("http://ops:hunter2@127.0.0.1:%1/metrics").arg(port);
    const auto json = runCli(
        {QStringLiteral("metrics"), QStringLiteral("summarize"), url, QStringLiteral("--json")});
    const auto text = runCli({QStringLiteral("metrics"), QStringLiteral("summarize"), url});
    server.stop();
    thread.join();

    EXPECT_EQ(json.exitCode, 0) << json.standardError.toStdString();
    const QJsonArray warnings = json.json().object().value(QStringLiteral("warnings")).toArray();
    ASSERT_EQ(warnings.size(), 1) << json.standardOutput.toStdString();
    EXPECT_TRUE(warnings[0]
                    .toObject()
                    .value(QStringLiteral("reason"))
                    .toString()
                    .contains(QStringLiteral("OpenMetrics page without \"# EOF\" line")))
        << json.standardOutput.toStdString();
    EXPECT_EQ(json.json().object().value(QStringLiteral("source")).toString(),
              QStringLiteral("http://127.0.0.1:%1/metrics").arg(port));
    EXPECT_EQ(text.exitCode, 0) << text.standardError.toStdString();
    EXPECT_TRUE(text.standardOutput.contains(
        QStringLiteral("warning: http://127.0.0.1:%1/metrics:2:").arg(port).toUtf8()))
        << text.standardOutput.toStdString();
    for (const auto &run : {json, text}) {
        EXPECT_FALSE(run.standardOutput.contains("hunter2")) << run.standardOutput.toStdString();
        EXPECT_FALSE(run.standardError.contains("hunter2")) << run.standardError.toStdString();
    }
}

TEST(CliMetrics, ProfileOptionAndProfileKeys)
{
    const QString b07 = dataPath(QStringLiteral("metrics/B07_vllm_dp_per_engine_series.prom"));
    const auto run = runCli(
        {QStringLiteral("metrics"), QStringLiteral("summarize"), b07, QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject summary = run.json().object();
    EXPECT_EQ(summary.value(QStringLiteral("profile")).toString(), QStringLiteral("vllm"));
    EXPECT_EQ(summary.value(QStringLiteral("running")).toDouble(), 10);
    EXPECT_DOUBLE_EQ(summary.value(QStringLiteral("kv_usage")).toDouble(), 0.6);
    EXPECT_DOUBLE_EQ(summary.value(QStringLiteral("kv_usage_max")).toDouble(), 0.8);
    EXPECT_DOUBLE_EQ(summary.value(QStringLiteral("ttft_mean_s")).toDouble(), 0.4);
    for (const char *key :
         {"itl_mean_s", "e2e_mean_s", "prefill_bootstrap_queue", "prefill_inflight_queue",
          "decode_prealloc_queue", "decode_transfer_queue", "bootstrap_failures_total",
          "transfer_failures_total"}) {
        ASSERT_TRUE(summary.contains(QString::fromLatin1(key))) << key;
        EXPECT_TRUE(summary.value(QString::fromLatin1(key)).isNull()) << key;
    }
    for (const char *key : {"families", "series", "warnings", "waiting", "generation_tokens_total",
                            "prompt_tokens_total", "source"})
        EXPECT_TRUE(summary.contains(QString::fromLatin1(key))) << key;

    // Forced profile: an SGLang reading of a vLLM page finds nothing.
    const auto forced =
        runCli({QStringLiteral("metrics"), QStringLiteral("summarize"), b07,
                QStringLiteral("--profile"), QStringLiteral("sglang"), QStringLiteral("--json")});
    ASSERT_EQ(forced.exitCode, 0);
    EXPECT_EQ(forced.json().object().value(QStringLiteral("profile")).toString(),
              QStringLiteral("sglang"));
    EXPECT_TRUE(forced.json().object().value(QStringLiteral("running")).isNull());

    const auto docs =
        runCli({QStringLiteral("metrics"), QStringLiteral("summarize"),
                dataPath(QStringLiteral("metrics/01-sglang_docs_production_metrics_example.prom")),
                QStringLiteral("--profile"), QStringLiteral("auto"), QStringLiteral("--json")});
    ASSERT_EQ(docs.exitCode, 0);
    EXPECT_DOUBLE_EQ(docs.json().object().value(QStringLiteral("itl_mean_s")).toDouble(),
                     866964.5791549598 / 7400757);

    const auto bad = runCli({QStringLiteral("metrics"), QStringLiteral("summarize"), b07,
                             QStringLiteral("--profile"), QStringLiteral("trtllm")});
    EXPECT_EQ(bad.exitCode, 2);
    EXPECT_TRUE(bad.standardError.contains("--profile")) << bad.standardError.toStdString();
}

TEST(CliMetrics, RateBetweenTwoScrapes)
{
    QTemporaryDir dir;
    auto write = [&dir](const char *name, double generation, double prompt, int b01, int b05,
                        int b1, int all) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(QStringLiteral("# TYPE vllm:generation_tokens_total counter\n"
                                  "vllm:generation_tokens_total %1\n"
                                  "# TYPE vllm:prompt_tokens_total counter\n"
                                  "vllm:prompt_tokens_total %2\n"
                                  "# TYPE vllm:time_to_first_token_seconds histogram\n"
                                  "vllm:time_to_first_token_seconds_bucket{le=\"0.1\"} %3\n"
                                  "vllm:time_to_first_token_seconds_bucket{le=\"0.5\"} %4\n"
                                  "vllm:time_to_first_token_seconds_bucket{le=\"1.0\"} %5\n"
                                  "vllm:time_to_first_token_seconds_bucket{le=\"+Inf\"} %6\n"
                                  "vllm:time_to_first_token_seconds_count %6\n")
                       .arg(generation)
                       .arg(prompt)
                       .arg(b01)
                       .arg(b05)
                       .arg(b1)
                       .arg(all)
                       .toUtf8());
        return path;
    };
    const QString first = write("first.prom", 1000, 200, 5, 20, 30, 30);
    const QString second = write("second.prom", 2000, 700, 15, 80, 120, 130);
    const QString restarted = write("restarted.prom", 300, 100, 10, 60, 90, 100);
    auto rate = [](const QJsonObject &result, const char *key) {
        return result.value(QStringLiteral("rates"))
            .toObject()
            .value(QString::fromLatin1(key))
            .toObject();
    };

    // --interval 10: (2000 - 1000) / 10 = 100 tokens/s, (700 - 200) / 10 = 50.
    const auto run =
        runCli({QStringLiteral("metrics"), QStringLiteral("rate"), first, second,
                QStringLiteral("--interval"), QStringLiteral("10"), QStringLiteral("--json")});
    ASSERT_EQ(run.exitCode, 0) << run.standardError.toStdString();
    const QJsonObject result = run.json().object();
    EXPECT_DOUBLE_EQ(rate(result, "generation_tokens").value(QStringLiteral("per_s")).toDouble(),
                     100);
    EXPECT_FALSE(rate(result, "generation_tokens").value(QStringLiteral("reset")).toBool());
    EXPECT_DOUBLE_EQ(rate(result, "prompt_tokens").value(QStringLiteral("per_s")).toDouble(), 50);
    EXPECT_DOUBLE_EQ(
        rate(result, "vllm:generation_tokens_total").value(QStringLiteral("per_s")).toDouble(),
        100);
    // TTFT bucket deltas {10, 60, 90, 100}: p50 0.1 + 0.4 * 40 / 50 = 0.42; p95, p99 in +Inf -> 1.
    const QJsonObject ttft = result.value(QStringLiteral("quantiles"))
                                 .toObject()
                                 .value(QStringLiteral("ttft"))
                                 .toObject();
    EXPECT_DOUBLE_EQ(ttft.value(QStringLiteral("p50")).toDouble(), 0.42);
    EXPECT_DOUBLE_EQ(ttft.value(QStringLiteral("p95")).toDouble(), 1);
    EXPECT_DOUBLE_EQ(ttft.value(QStringLiteral("p99")).toDouble(), 1);
    // p50 between two edges: no bound; p95 and p99 in +Inf: "above 1 s".
    EXPECT_TRUE(ttft.contains(QStringLiteral("p50_bound")));
    EXPECT_TRUE(ttft.value(QStringLiteral("p50_bound")).isNull());
    EXPECT_EQ(ttft.value(QStringLiteral("p95_bound")).toString(), QStringLiteral("lower"));
    EXPECT_EQ(ttft.value(QStringLiteral("p99_bound")).toString(), QStringLiteral("lower"));

    // --at T1 T2: 1000 tokens over 20 s.
    const auto at = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), first, second,
                            QStringLiteral("--at"), QStringLiteral("1000"), QStringLiteral("1020"),
                            QStringLiteral("--json")});
    ASSERT_EQ(at.exitCode, 0) << at.standardError.toStdString();
    EXPECT_DOUBLE_EQ(
        rate(at.json().object(), "generation_tokens").value(QStringLiteral("per_s")).toDouble(),
        50);

    // Default: the files' modification times, 4 s apart: 1000 / 4 = 250.
    {
        QFile a(first);
        QFile b(second);
        ASSERT_TRUE(a.open(QIODevice::ReadWrite) && b.open(QIODevice::ReadWrite));
        ASSERT_TRUE(a.setFileTime(QDateTime::fromSecsSinceEpoch(1'700'000'000),
                                  QFileDevice::FileModificationTime));
        ASSERT_TRUE(b.setFileTime(QDateTime::fromSecsSinceEpoch(1'700'000'004),
                                  QFileDevice::FileModificationTime));
    }
    const auto mtimes = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), first, second,
                                QStringLiteral("--json")});
    ASSERT_EQ(mtimes.exitCode, 0) << mtimes.standardError.toStdString();
    EXPECT_DOUBLE_EQ(
        rate(mtimes.json().object(), "generation_tokens").value(QStringLiteral("per_s")).toDouble(),
        250);

    // A restart between the scrapes: 300 / 10 = 30 tokens/s, flagged, never negative.
    const auto reset = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), first, restarted,
                               QStringLiteral("--at"), QStringLiteral("1000"),
                               QStringLiteral("1010"), QStringLiteral("--json")});
    ASSERT_EQ(reset.exitCode, 0) << reset.standardError.toStdString();
    const QJsonObject generation = rate(reset.json().object(), "generation_tokens");
    EXPECT_DOUBLE_EQ(generation.value(QStringLiteral("per_s")).toDouble(), 30);
    EXPECT_TRUE(generation.value(QStringLiteral("reset")).toBool());

    // Text output names the rate too.
    const auto text = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), first, second,
                              QStringLiteral("--interval"), QStringLiteral("10")});
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_TRUE(text.standardOutput.contains("generation_tokens: 100/s"))
        << text.standardOutput.toStdString();

    // Bad input: exit 2.
    const QString rateWord = QStringLiteral("rate");
    const QString metricsWord = QStringLiteral("metrics");
    for (const QStringList &args :
         {QStringList{metricsWord, rateWord, first, dir.filePath(QStringLiteral("missing.prom")),
                      QStringLiteral("--interval"), QStringLiteral("10")},
          QStringList{metricsWord, rateWord, first, second, QStringLiteral("--interval"),
                      QStringLiteral("0")},
          QStringList{metricsWord, rateWord, first, second, QStringLiteral("--interval"),
                      QStringLiteral("-5")},
          QStringList{metricsWord, rateWord, first, second, QStringLiteral("--at"),
                      QStringLiteral("1010"), QStringLiteral("1000")},
          QStringList{metricsWord, rateWord, first, second, QStringLiteral("--at"),
                      QStringLiteral("1000"), QStringLiteral("1000")},
          QStringList{metricsWord, rateWord, first, second, QStringLiteral("--interval"),
                      QStringLiteral("10"), QStringLiteral("--at"), QStringLiteral("1"),
                      QStringLiteral("2")},
          QStringList{metricsWord, rateWord, first}})
        EXPECT_EQ(runCli(args).exitCode, 2) << args.join(u' ').toStdString();
}

TEST(CliMetrics, RateOfAPageWithoutFamiliesFailsLikeSummarize)
{
    QTemporaryDir dir;
    auto write = [&dir](const char *name, const QByteArray &text) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QFile file(path);
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(text);
        return path;
    };
    const QString good = write("good.prom", "# TYPE vllm:generation_tokens_total counter\n"
                                            "vllm:generation_tokens_total 1000\n");
    const QString empty = write("empty.prom", QByteArray());
    const QString garbage = write("garbage.prom", "garbage here\n\x01\x02\xff\n");
    // Over the parser's 16 MiB page limit, made of valid lines.
    const QString huge =
        write("huge.prom", QByteArray("vllm:num_requests_running 1\n").repeated((17 << 20) / 28));
    for (const QString &bad : {empty, garbage, huge}) {
        for (const QStringList &pair : {QStringList{good, bad}, QStringList{bad, good}}) {
            const auto rate = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), pair[0],
                                      pair[1], QStringLiteral("--interval"), QStringLiteral("5"),
                                      QStringLiteral("--json")});
            EXPECT_EQ(rate.exitCode, 1) << rate.standardOutput.toStdString();
            EXPECT_TRUE(rate.standardOutput.isEmpty()) << rate.standardOutput.toStdString();
            EXPECT_TRUE(rate.standardError.contains(
                (bad + QStringLiteral(": no metric families")).toUtf8()))
                << rate.standardError.toStdString();
        }
        const auto summarize =
            runCli({QStringLiteral("metrics"), QStringLiteral("summarize"), bad});
        EXPECT_EQ(summarize.exitCode, 1) << "the same exit code as summarize";
    }
    const auto twoGood = runCli({QStringLiteral("metrics"), QStringLiteral("rate"), good, good,
                                 QStringLiteral("--interval"), QStringLiteral("5")});
    EXPECT_EQ(twoGood.exitCode, 0) << twoGood.standardError.toStdString();
}
