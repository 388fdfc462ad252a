#include "curlcommand.h"

#include "shellquote.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

namespace opsdeck::probes {

namespace {

// The fields ProbeResult carries, under curl's own -w names. `\n` stays
// literal inside single quotes; curl's -w turns it into a newline.
const char *const writeOutFormat =
    "time_namelookup=%{time_namelookup} time_connect=%{time_connect} "
    "time_appconnect=%{time_appconnect} time_starttransfer=%{time_starttransfer} "
    "time_total=%{time_total} num_connects=%{num_connects} local_port=%{local_port} "
    "http_code=%{http_code}\\n";

QByteArray commandBody(const ProbeRequest &request)
{
    if (request.kind != ProbeKind::ChatStream)
        return request.body;
    // The engine streams ChatStream bodies; the command must ask the same.
    QJsonObject object = QJsonDocument::fromJson(request.body).object();
    if (object.isEmpty() || object.value(QLatin1String("stream")).toBool())
        return request.body;
    object.insert(QLatin1String("stream"), true);
    return QJsonDocument(object).toJson(QJsonDocument::Compact);
}

} // namespace

QString curlCommandFor(const ProbeRequest &request)
{
    QStringList words = {QStringLiteral("curl"), QStringLiteral("-sS"),
                         QStringLiteral("--http1.1")};
    if (request.proxy.isEmpty())
        words << QStringLiteral("--noproxy") << shell::singleQuoted(QStringLiteral("*"));
    else
        words << QStringLiteral("--proxy")
              << shell::singleQuoted(request.proxy.toString(QUrl::FullyEncoded));
    if (!request.caFile.isEmpty())
        words << QStringLiteral("--cacert") << shell::singleQuoted(request.caFile);
    if (!request.verifyTls)
        words << QStringLiteral("-k");
    const int timeoutMs = std::max(1, request.timeoutMs);
    words << QStringLiteral("--max-time") << QString::number(timeoutMs / 1000.0, 'f', 3);
    if (!request.apiKey.isEmpty())
        words << QStringLiteral("-H")
              << QStringLiteral("\"Authorization: Bearer $OPSDECK_API_KEY\"");
    if (request.kind == ProbeKind::Delete)
        words << QStringLiteral("-X") << QStringLiteral("DELETE");
    else if (request.kind != ProbeKind::Get) {
        words << QStringLiteral("-H")
              << shell::singleQuoted(QStringLiteral("Content-Type: application/json"))
              << QStringLiteral("--data-raw")
              << shell::singleQuoted(QString::fromUtf8(commandBody(request)));
    }
    words << QStringLiteral("-w") << shell::singleQuoted(QString::fromLatin1(writeOutFormat));
    const QString url = shell::singleQuoted(
        request.url.adjusted(QUrl::RemoveUserInfo).toString(QUrl::FullyEncoded));
    const int transfers = request.mode == ConnectionMode::Reused ? 2 : 1;
    for (int i = 0; i < transfers; ++i)
        words << QStringLiteral("-o") << QStringLiteral("/dev/null");
    for (int i = 0; i < transfers; ++i)
        words << url;
    return words.join(QLatin1Char(' '));
}

} // namespace opsdeck::probes
