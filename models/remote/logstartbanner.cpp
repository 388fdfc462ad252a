#include "logstartbanner.h"

namespace opsdeck::remote {

QList<LogStartBanner> LogStartBanner::defaults()
{
    return {
        {QStringLiteral("SGLang server_args=ServerArgs("),
         QRegularExpression(QRegularExpression::escape(QStringLiteral("server_args=ServerArgs(")))},
        {QStringLiteral("vLLM API server version"),
         QRegularExpression(QRegularExpression::escape(QStringLiteral("vLLM API server version")))},
        {QStringLiteral("opsdeck-sim listening on"),
         QRegularExpression(QStringLiteral("^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3} "
                                           "INFO [a-z]+: listening on https?://"))},
    };
}

QList<QRegularExpression> LogStartBanner::patterns(const QList<LogStartBanner> &banners)
{
    QList<QRegularExpression> result;
    for (const LogStartBanner &banner : banners)
        result.append(banner.pattern);
    return result;
}

} // namespace opsdeck::remote
