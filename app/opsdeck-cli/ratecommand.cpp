#include "ratecommand.h"

#include "clioutput.h"
#include "counterrate.h"
#include "engineprofile.h"
#include "expositionparser.h"
#include "histogramquantile.h"
#include "profileoption.h"

#include <QDateTime>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>
#include <cmath>
#include <optional>
#include <utility>

namespace opsdeck::cli {

namespace {

const char *rateUsage = "usage: opsdeck-cli metrics rate FILE1 FILE2 "
                        "(--interval SECONDS | --at T1 T2) [--profile NAME] [--json]";

QString fromStd(std::string_view text)
{
    return QString::fromUtf8(text.data(), static_cast<qsizetype>(text.size()));
}

/// A finite number, or nullopt (printed as a usage error by the caller).
std::optional<double> number(const QString &text)
{
    bool ok = false;
    const double value = text.toDouble(&ok);
    if (!ok || !std::isfinite(value))
        return std::nullopt;
    return value;
}

/// NaN (no observation in the window) as JSON null: JSON has no NaN.
QJsonValue jsonNumber(double value)
{
    return std::isfinite(value) ? QJsonValue(value) : QJsonValue();
}

/// The file's bytes, or nullopt after printing why not (bad input).
std::optional<QByteArray> readPage(const QString &path)
{
    // A FIFO or a device would block or never end: only regular files.
    if (QFileInfo(path).exists() && !QFileInfo(path).isFile()) {
        printError(QStringLiteral("%1: not a regular file").arg(path));
        return std::nullopt;
    }
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        printError(QStringLiteral("%1: %2").arg(path, file.errorString()));
        return std::nullopt;
    }
    return file.readAll();
}

/// Unix seconds of the file's last change, with ms precision.
double modifiedS(const QString &path)
{
    return static_cast<double>(
               QFileInfo(path).fileTime(QFileDevice::FileModificationTime).toMSecsSinceEpoch()) /
           1000.0;
}

} // namespace

int runMetricsRate(const QStringList &arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "metrics rate FILE1 FILE2: per-second counter rates and windowed latency quantiles "
        "between two scrapes of one /metrics page."));
    parser.addPositionalArgument(QStringLiteral("rate"), QStringLiteral("The action."));
    parser.addPositionalArgument(QStringLiteral("file1"), QStringLiteral("The earlier scrape."));
    parser.addPositionalArgument(QStringLiteral("file2"), QStringLiteral("The later scrape."));
    parser.addOption(jsonOption());
    parser.addOption({QStringLiteral("interval"),
                      QStringLiteral("Seconds between the scrapes; the second one is taken at "
                                     "FILE2's modification time."),
                      QStringLiteral("seconds")});
    parser.addOption({QStringLiteral("at"),
                      QStringLiteral("Scrape times T1 T2 in Unix seconds (default: the files' "
                                     "modification times)."),
                      QStringLiteral("T1")});
    parser.addOption(profileOption());
    if (!parseArguments(parser, arguments))
        return ExitBadInput;
    QStringList positional = parser.positionalArguments();
    // `--at T1 T2`: the parser gives T1 to the option and leaves T2 positional;
    // `--at T1 --at T2` works too.
    QStringList at = parser.values(QStringLiteral("at"));
    if (at.size() == 1 && positional.size() == 4)
        at.append(positional.takeLast());
    const bool hasInterval = parser.isSet(QStringLiteral("interval"));
    if (positional.size() != 3 || positional.at(0) != u"rate" || (hasInterval && !at.isEmpty()) ||
        (!at.isEmpty() && at.size() != 2)) {
        printError(QString::fromLatin1(rateUsage));
        return ExitBadInput;
    }
    const auto chosenProfile = readProfile(parser);
    if (!chosenProfile)
        return ExitBadInput;
    const metrics::Profile profile = *chosenProfile;
    const QString path1 = positional.at(1);
    const QString path2 = positional.at(2);
    const auto body1 = readPage(path1);
    if (!body1)
        return ExitBadInput;
    const auto body2 = readPage(path2);
    if (!body2)
        return ExitBadInput;

    double t1 = modifiedS(path1);
    double t2 = modifiedS(path2);
    if (hasInterval) {
        const auto interval = number(parser.value(QStringLiteral("interval")));
        if (!interval || *interval <= 0) {
            printError(QStringLiteral("bad --interval '%1': expected seconds > 0")
                           .arg(parser.value(QStringLiteral("interval"))));
            return ExitBadInput;
        }
        // Absolute times still matter: a `_created` time is compared with t2.
        t1 = t2 - *interval;
    } else if (!at.isEmpty()) {
        const auto first = number(at.at(0));
        const auto second = number(at.at(1));
        if (!first || !second) {
            printError(
                QStringLiteral("bad --at '%1 %2': expected Unix seconds").arg(at.at(0), at.at(1)));
            return ExitBadInput;
        }
        t1 = *first;
        t2 = *second;
    }
    if (!(t2 > t1)) {
        printError(QStringLiteral("the second scrape (%1) is not after the first (%2)")
                       .arg(t2, 0, 'f', 3)
                       .arg(t1, 0, 'f', 3));
        return ExitBadInput;
    }

    const auto page1 = metrics::ExpositionParser::parse(
        std::string_view(body1->constData(), static_cast<std::size_t>(body1->size())));
    const auto page2 = metrics::ExpositionParser::parse(
        std::string_view(body2->constData(), static_cast<std::size_t>(body2->size())));
    // A page without a family (empty, not the exposition format, or over the
    // size limit) has no counter to rate: fail like `metrics summarize`
    // rather than print an empty result that reads as "all rates zero".
    bool pagesUsable = true;
    for (const auto &[path, page] : {std::pair{path1, &page1}, std::pair{path2, &page2}}) {
        if (!page->families.empty())
            continue;
        pagesUsable = false;
        printError(QStringLiteral("%1: no metric families").arg(path));
        for (const auto &warning : page->warnings)
            printError(QStringLiteral("warning: %1:%2: %3")
                           .arg(path)
                           .arg(warning.line)
                           .arg(QString::fromStdString(warning.reason)));
    }
    if (!pagesUsable)
        return ExitFailed;
    const metrics::Scrape before{page1, t1};
    const metrics::Scrape after{page2, t2};

    QJsonObject rates;
    QStringList lines;
    auto addRate = [&](const QString &key, const metrics::Rate &rate) {
        rates.insert(key, QJsonObject{{QStringLiteral("per_s"), *rate.perSecond},
                                      {QStringLiteral("reset"), rate.reset},
                                      {QStringLiteral("from_created"), rate.fromCreated}});
        lines.append(QStringLiteral("%1: %2/s%3")
                         .arg(key, QString::number(*rate.perSecond, 'g', 12),
                              rate.reset ? QStringLiteral(" (reset)") : QString()));
    };
    for (const metrics::Concept which : metrics::CounterRate::counterConcepts()) {
        const metrics::Rate rate = metrics::CounterRate::perConcept(which, before, after, profile);
        if (rate.perSecond)
            addRate(QString::fromStdString(metrics::CounterRate::key(which)), rate);
    }
    for (const metrics::SeriesRate &series : metrics::CounterRate::perSeries(before, after))
        addRate(QString::fromStdString(series.series), series.rate);

    QJsonObject quantiles;
    for (const metrics::Concept which : metrics::HistogramQuantile::latencyConcepts()) {
        const auto window = metrics::HistogramQuantile::forConcept(which, page1, page2, profile);
        if (!window.present)
            continue;
        const QString key = fromStd(metrics::EngineProfile::key(which));
        // A quantile in the first or last bucket is a bound: its own key says which.
        const auto bound = [](metrics::QuantileBound b) {
            return b == metrics::QuantileBound::None
                       ? QJsonValue()
                       : QJsonValue(QString::fromLatin1(metrics::quantileBoundName(b)));
        };
        const auto text = [](double value, metrics::QuantileBound b) {
            const QString number = QString::number(value, 'g', 6);
            return b == metrics::QuantileBound::Upper   ? QStringLiteral("< ") + number
                   : b == metrics::QuantileBound::Lower ? QStringLiteral("> ") + number
                                                        : number;
        };
        quantiles.insert(key, QJsonObject{{QStringLiteral("p50"), jsonNumber(window.p50)},
                                          {QStringLiteral("p95"), jsonNumber(window.p95)},
                                          {QStringLiteral("p99"), jsonNumber(window.p99)},
                                          {QStringLiteral("p50_bound"), bound(window.p50Bound)},
                                          {QStringLiteral("p95_bound"), bound(window.p95Bound)},
                                          {QStringLiteral("p99_bound"), bound(window.p99Bound)},
                                          {QStringLiteral("observations"), window.observations},
                                          {QStringLiteral("reset"), window.reset}});
        lines.append(QStringLiteral("%1: p50 %2 s, p95 %3 s, p99 %4 s (%5 observations)")
                         .arg(key, text(window.p50, window.p50Bound),
                              text(window.p95, window.p95Bound), text(window.p99, window.p99Bound))
                         .arg(window.observations));
    }

    if (parser.isSet(QStringLiteral("json"))) {
        QJsonObject result{{QStringLiteral("rates"), rates},
                           {QStringLiteral("interval_s"), t2 - t1}};
        if (!quantiles.isEmpty())
            result.insert(QStringLiteral("quantiles"), quantiles);
        printJson(QJsonDocument(result));
    } else {
        printLine(QStringLiteral("interval: %1 s").arg(t2 - t1));
        for (const QString &line : lines)
            printLine(line);
    }
    return ExitOk;
}

} // namespace opsdeck::cli
