// The batch verdict at the sizes too slow for CI ("long"): N = 96 and 256 on
// a sim admitting all of them, an admission limit of N/4 at 256, and one at a
// time at 64.
#include "pdcluster.h"

#include <gtest/gtest.h>

using namespace opsdeck;
using probes::BatchVerdict;

TEST(BatchCheckLong, NinetySixAndTwoHundredFiftySixRequestsAreBatched)
{
    for (const int n : {96, 256}) {
        // An engine that admits all N (the sim's default admits 64, as SGLang's
        // --max-running-requests would): what is judged is the batching itself.
        const probes::BatchCheckResult result =
            test::PdCluster::batchCheck(n, test::admissionLimit(n));
        EXPECT_EQ(result.verdict, BatchVerdict::Batched)
            << n << ": " << result.reason.toStdString();
        EXPECT_GE(result.peakRunning, 0.75 * n);
        EXPECT_EQ(result.failures, 0);
    }
}

TEST(BatchCheckLong, AQuarterAdmittedAtTwoHundredFiftySixIsPartial)
{
    const probes::BatchCheckResult result =
        test::PdCluster::batchCheck(256, test::admissionLimit(64));
    EXPECT_EQ(result.verdict, BatchVerdict::Partial) << result.reason.toStdString();
    EXPECT_LE(result.peakRunning, 64);
}

TEST(BatchCheckLong, OneAtATimeAtSixtyFourIsSerialized)
{
    const probes::BatchCheckResult result =
        test::PdCluster::batchCheck(64, test::admissionLimit(1));
    EXPECT_EQ(result.verdict, BatchVerdict::Serialized) << result.reason.toStdString();
    EXPECT_EQ(result.peakRunning, 1);
}
