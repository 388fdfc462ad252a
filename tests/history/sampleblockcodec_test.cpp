// SampleBlockCodec: exact round trips (NaN payloads, ±Inf, -0, irregular,
// out-of-order and extreme times), compactness of a steady series, and
// refusal of corrupt blocks.
#include "sampleblockcodec.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>

using opsdeck::history::Sample;
using opsdeck::history::SampleBlockCodec;

namespace {

quint64 bits(double value)
{
    quint64 b;
    std::memcpy(&b, &value, sizeof b);
    return b;
}

void expectExact(const QVector<Sample> &expected)
{
    const auto decoded = SampleBlockCodec::decode(SampleBlockCodec::encode(expected));
    ASSERT_TRUE(decoded.has_value());
    ASSERT_EQ(decoded->size(), expected.size());
    for (qsizetype i = 0; i < expected.size(); ++i) {
        EXPECT_EQ((*decoded)[i].timeMs, expected[i].timeMs) << "sample " << i;
        EXPECT_EQ(bits((*decoded)[i].value), bits(expected[i].value)) << "sample " << i;
    }
}

} // namespace

TEST(SampleBlockCodec, RoundTripsSpecialValuesAndIrregularTimesExactly)
{
    double payloadNaN;
    const quint64 nanBits = 0x7ff8dead'beef0001ULL;
    std::memcpy(&payloadNaN, &nanBits, sizeof payloadNaN);
    const QVector<Sample> samples{
        {1'700'000'000'000, 0.0},
        {1'700'000'001'000, std::numeric_limits<double>::quiet_NaN()},
        {1'700'000'001'997, std::numeric_limits<double>::infinity()},
        {1'700'000'003'412, -std::numeric_limits<double>::infinity()},
        {1'700'000'003'412, -0.0}, // same time twice
        {1'700'000'002'000, 0.1},  // earlier than the one before
        {1'700'000'090'000, payloadNaN},
        {1'700'000'090'001, 1e308},
        {1'700'000'090'002, std::numeric_limits<double>::denorm_min()},
        {1'700'000'090'003, 19.0},
        {1'700'000'090'004, 19.0},
        {1'700'000'090'005, -123456.789},
    };
    expectExact(samples);
}

TEST(SampleBlockCodec, RoundTripsExtremeTimesAndEmptyBlocks)
{
    expectExact({});
    expectExact({{0, 1.0}});
    expectExact({{std::numeric_limits<qint64>::max(), 1.0},
                 {std::numeric_limits<qint64>::min(), 2.0},
                 {-5, 3.0},
                 {std::numeric_limits<qint64>::max(), 4.0}});
}

TEST(SampleBlockCodec, ASteadySeriesCostsAboutOneByteASample)
{
    QVector<Sample> samples;
    for (int i = 0; i < 600; ++i)
        samples.append({1'700'000'000'000 + i * 1000LL, static_cast<double>(i % 7 == 0 ? 3 : 2)});
    const QByteArray encoded = SampleBlockCodec::encode(samples);
    // 16 bytes/sample raw; a 1 s poll of small integers must compress far below that.
    EXPECT_LT(encoded.size(), 600) << encoded.size() << " bytes for 600 samples";
    expectExact(samples);
}

TEST(SampleBlockCodec, RefusesCorruptBlocks)
{
    QVector<Sample> samples;
    for (int i = 0; i < 50; ++i)
        samples.append({i * 1000LL, i * 0.37});
    const QByteArray good = SampleBlockCodec::encode(samples);
    EXPECT_FALSE(SampleBlockCodec::decode(QByteArray()).has_value());
    EXPECT_FALSE(SampleBlockCodec::decode(QByteArrayLiteral("garbage!")).has_value());
    EXPECT_FALSE(SampleBlockCodec::decode(good.left(good.size() / 2)).has_value());
    // A valid zlib stream whose payload is cut short.
    QByteArray raw = qUncompress(good);
    raw.chop(3);
    EXPECT_FALSE(SampleBlockCodec::decode(qCompress(raw)).has_value());
    raw = qUncompress(good) + QByteArrayLiteral("x");
    EXPECT_FALSE(SampleBlockCodec::decode(qCompress(raw)).has_value()) << "trailing bytes";
}
