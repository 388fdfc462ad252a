#include "sampleblockcodec.h"

#include <bit>
#include <cstring>

namespace opsdeck::history {

namespace {

void putVarint(QByteArray &out, quint64 value)
{
    while (value >= 0x80) {
        out.append(static_cast<char>((value & 0x7f) | 0x80));
        value >>= 7;
    }
    out.append(static_cast<char>(value));
}

quint64 zigzag(qint64 value)
{
    return (static_cast<quint64>(value) << 1) ^ static_cast<quint64>(value >> 63);
}

qint64 unzigzag(quint64 value)
{
    return static_cast<qint64>(value >> 1) ^ -static_cast<qint64>(value & 1);
}

quint64 bitsOf(double value)
{
    quint64 bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

double doubleOf(quint64 bits)
{
    double value;
    std::memcpy(&value, &bits, sizeof value);
    return value;
}

// Reads from a raw payload; every read checks the end, so a corrupt block
// fails instead of reading past it.
class Reader
{
public:
    explicit Reader(const QByteArray &data) : m_data(data) {}
    bool varint(quint64 &value)
    {
        value = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_pos >= m_data.size())
                return false;
            const auto byte = static_cast<quint8>(m_data[m_pos++]);
            value |= static_cast<quint64>(byte & 0x7f) << shift;
            if (!(byte & 0x80))
                return true;
        }
        return false;
    }
    bool byte(quint8 &value)
    {
        if (m_pos >= m_data.size())
            return false;
        value = static_cast<quint8>(m_data[m_pos++]);
        return true;
    }
    bool atEnd() const { return m_pos == m_data.size(); }

private:
    const QByteArray &m_data;
    qsizetype m_pos = 0;
};

} // namespace

QByteArray SampleBlockCodec::encode(const QVector<Sample> &samples)
{
    QByteArray raw;
    raw.reserve(samples.size() * 4 + 8);
    putVarint(raw, static_cast<quint64>(samples.size()));
    // Unsigned arithmetic: differences of extreme times wrap and unwrap exactly.
    quint64 previous = 0;
    quint64 previousDelta = 0;
    for (qsizetype i = 0; i < samples.size(); ++i) {
        const auto time = static_cast<quint64>(samples[i].timeMs);
        const quint64 delta = time - previous;
        putVarint(raw, zigzag(static_cast<qint64>(i == 0 ? time : delta - previousDelta)));
        previousDelta = i == 0 ? 0 : delta;
        previous = time;
    }
    quint64 previousBits = 0;
    for (const Sample &sample : samples) {
        const quint64 bits = bitsOf(sample.value);
        const quint64 x = bits ^ previousBits;
        previousBits = bits;
        if (x == 0) {
            raw.append('\0');
            continue;
        }
        const int trailing = std::countr_zero(x) / 8;
        const int leading = std::countl_zero(x) / 8;
        const int n = 8 - trailing - leading;
        raw.append(static_cast<char>((trailing << 4) | n));
        for (int b = 0; b < n; ++b)
            raw.append(static_cast<char>((x >> (8 * (trailing + b))) & 0xff));
    }
    return qCompress(raw);
}

std::optional<QVector<Sample>> SampleBlockCodec::decode(const QByteArray &data)
{
    if (data.size() < 4)
        return std::nullopt;
    const QByteArray raw = qUncompress(data);
    Reader reader(raw);
    quint64 count = 0;
    // A block holds at most a few thousand samples; a huge count is corruption.
    if (raw.isEmpty() || !reader.varint(count) || count > static_cast<quint64>(raw.size()))
        return std::nullopt;
    QVector<Sample> samples(static_cast<qsizetype>(count));
    quint64 previous = 0;
    quint64 previousDelta = 0;
    for (quint64 i = 0; i < count; ++i) {
        quint64 coded = 0;
        if (!reader.varint(coded))
            return std::nullopt;
        const auto value = static_cast<quint64>(unzigzag(coded));
        const quint64 time = i == 0 ? value : previous + previousDelta + value;
        previousDelta = i == 0 ? 0 : time - previous;
        previous = time;
        samples[static_cast<qsizetype>(i)].timeMs = static_cast<qint64>(time);
    }
    quint64 previousBits = 0;
    for (quint64 i = 0; i < count; ++i) {
        quint8 header = 0;
        if (!reader.byte(header))
            return std::nullopt;
        quint64 x = 0;
        if (header != 0) {
            const int trailing = header >> 4;
            const int n = header & 0x0f;
            if (n == 0 || trailing + n > 8)
                return std::nullopt;
            for (int b = 0; b < n; ++b) {
                quint8 byte = 0;
                if (!reader.byte(byte))
                    return std::nullopt;
                x |= static_cast<quint64>(byte) << (8 * (trailing + b));
            }
        }
        previousBits ^= x;
        samples[static_cast<qsizetype>(i)].value = doubleOf(previousBits);
    }
    if (!reader.atEnd())
        return std::nullopt;
    return samples;
}

} // namespace opsdeck::history
