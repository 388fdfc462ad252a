// The knob catalog compiled in from resources/knobs/catalog.json.
#include "knobcatalog.h"

#include <gtest/gtest.h>

using opsdeck::knobs::KnobCatalog;

TEST(KnobCatalog, KnowsTheIncidentsKnobsAndTheCommonFlags)
{
    const KnobCatalog &catalog = KnobCatalog::builtIn();
    EXPECT_GE(catalog.size(), 20);
    const auto ctas = catalog.info(u"SGLANG_SM120_MMA_TARGET_CTAS"_qs);
    ASSERT_TRUE(ctas.has_value());
    EXPECT_TRUE(ctas->sides.contains(u"decode"_qs));
    EXPECT_TRUE(ctas->help().contains(u"Read by prefill, decode."_qs))
        << ctas->help().toStdString();
    for (const QString &name :
         {u"SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT"_qs,
          u"SGLANG_DISAGGREGATION_HEARTBEAT_INTERVAL"_qs,
          u"SGLANG_DISAGGREGATION_THREAD_POOL_SIZE"_qs, u"SGLANG_HEALTH_CHECK_TIMEOUT"_qs,
          u"SGLANG_ENABLE_HEALTH_ENDPOINT_GENERATION"_qs, u"--max-running-requests"_qs,
          u"--disaggregation-mode"_qs})
        EXPECT_TRUE(catalog.info(name).has_value()) << name.toStdString();
    EXPECT_FALSE(catalog.info(u"MY_OWN_KNOB"_qs).has_value()) << "unknown knobs have no entry";
}

TEST(KnobCatalog, ABadCatalogSaysWhichEntry)
{
    QString error;
    EXPECT_FALSE(KnobCatalog::fromJson(R"({"knobs":[{"name":"A","meaning":"m","default":"1",
        "sides":["decode"]},{"name":"B","meaning":"m"}]})",
                                       &error));
    EXPECT_TRUE(error.startsWith(u"knobs[1] (B)"_qs)) << error.toStdString();
    EXPECT_FALSE(KnobCatalog::fromJson("{", &error));
    EXPECT_TRUE(error.startsWith(u"at byte"_qs)) << error.toStdString();
}
