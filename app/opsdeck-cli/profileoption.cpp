#include "profileoption.h"

#include "clioutput.h"

namespace opsdeck::cli {

QCommandLineOption profileOption()
{
    return {QStringLiteral("profile"),
            QStringLiteral("Engine naming: auto (default), sglang, vllm or router."),
            QStringLiteral("name")};
}

std::optional<metrics::Profile> readProfile(const QCommandLineParser &parser)
{
    if (!parser.isSet(QStringLiteral("profile")))
        return metrics::Profile::Auto;
    const QString word = parser.value(QStringLiteral("profile"));
    const auto parsed = metrics::EngineProfile::fromName(word.toStdString());
    if (!parsed)
        printError(
            QStringLiteral("bad --profile '%1': expected auto, sglang, vllm or router").arg(word));
    return parsed;
}

} // namespace opsdeck::cli
