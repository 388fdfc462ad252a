#include "promqlbuilder.h"

#include <QStringList>
#include <functional>

namespace opsdeck::prometheus {

namespace {

using metrics::Concept;
using metrics::EngineProfile;
using metrics::Fold;
using metrics::Profile;

/// Families of `which` that `profile` reads, in order of preference.
QStringList familiesOf(Concept which, Profile profile)
{
    QStringList families;
    for (const auto &alias : EngineProfile::aliases(which)) {
        const QString family = QString::fromStdString(alias.family);
        if ((profile == Profile::Auto || alias.profile == profile) && !families.contains(family))
            families.append(family);
    }
    return families;
}

/// One expression per alias, joined with `or` (see the header for why).
QString eachAlias(Concept which, Profile profile,
                  const std::function<QString(const QString &family)> &expression)
{
    QStringList parts;
    for (const QString &family : familiesOf(which, profile))
        parts.append(expression(family));
    return parts.join(QStringLiteral(" or "));
}

QString window(int seconds)
{
    return QStringLiteral("[%1s]").arg(seconds);
}

QString dropReplicas(const QString &expression)
{
    return QStringLiteral("max without (tp_rank) (%1)").arg(expression);
}

} // namespace

QString PromqlBuilder::instanceOf(const QUrl &serviceUrl)
{
    const int port = serviceUrl.port(serviceUrl.scheme() == QLatin1String("https") ? 443 : 80);
    return QStringLiteral("%1:%2").arg(serviceUrl.host()).arg(port);
}

QString PromqlBuilder::selector(const QString &family, const QString &instance)
{
    QString quoted = instance;
    quoted.replace(QLatin1Char('\\'), QStringLiteral("\\\\"));
    quoted.replace(QLatin1Char('"'), QStringLiteral("\\\""));
    // A name with ':' is a valid metric name in PromQL (recording-rule style).
    return QStringLiteral("%1{instance=\"%2\"}").arg(family, quoted);
}

QString PromqlBuilder::value(Concept which, Profile profile, const QString &instance, int windowS)
{
    switch (EngineProfile::fold(which)) {
    case Fold::Sum:
        return eachAlias(which, profile, [&](const QString &family) {
            return QStringLiteral("sum(%1)").arg(dropReplicas(selector(family, instance)));
        });
    case Fold::Ratio:
        return eachAlias(which, profile, [&](const QString &family) {
            return QStringLiteral("avg(%1)").arg(dropReplicas(selector(family, instance)));
        });
    case Fold::Health:
        return eachAlias(which, profile, [&](const QString &family) {
            return QStringLiteral("sum(%1)").arg(selector(family, instance));
        });
    case Fold::Histogram:
        return eachAlias(which, profile, [&](const QString &family) {
            const auto rateOf = [&](const QString &suffix) {
                return QStringLiteral("sum(rate(%1%2))")
                    .arg(selector(family + suffix, instance), window(windowS));
            };
            return QStringLiteral("(%1 / %2)")
                .arg(rateOf(QStringLiteral("_sum")), rateOf(QStringLiteral("_count")));
        });
    }
    return {};
}

QString PromqlBuilder::ratioMax(Concept which, Profile profile, const QString &instance)
{
    return eachAlias(which, profile, [&](const QString &family) {
        return QStringLiteral("max(%1)").arg(selector(family, instance));
    });
}

QString PromqlBuilder::perSecond(Concept which, Profile profile, const QString &instance,
                                 int windowS)
{
    return eachAlias(which, profile, [&](const QString &family) {
        return QStringLiteral("sum(%1)").arg(dropReplicas(
            QStringLiteral("rate(%1%2)").arg(selector(family, instance), window(windowS))));
    });
}

QString PromqlBuilder::quantile(Concept which, Profile profile, const QString &instance, double q,
                                int windowS)
{
    return eachAlias(which, profile, [&](const QString &family) {
        return QStringLiteral("histogram_quantile(%1, sum by (le) (%2))")
            .arg(QString::number(q, 'g', 6),
                 dropReplicas(QStringLiteral("rate(%1%2)")
                                  .arg(selector(family + QStringLiteral("_bucket"), instance),
                                       window(windowS))));
    });
}

} // namespace opsdeck::prometheus
