#include "samplelineparser.h"

#include "textutil.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace opsdeck::metrics::detail {

namespace {

std::string_view tokenAt(std::string_view line, std::size_t pos)
{
    std::size_t end = pos;
    while (end < line.size() && !isBlank(line[end]))
        ++end;
    return line.substr(pos, end - pos);
}

void skipBlanks(std::string_view line, std::size_t &pos)
{
    while (pos < line.size() && isBlank(line[pos]))
        ++pos;
}

// After a label's value: ',' before the next label or '}' closing the set
// (`closed`); anything else, or the end of the line, is the error returned.
std::string readLabelEnd(std::string_view line, std::size_t &pos, std::string_view sampleName,
                         std::string_view labelName, bool &closed)
{
    skipBlanks(line, pos);
    if (pos >= line.size())
        return "unterminated label set of " + std::string(sampleName) + " (missing '}')";
    if (line[pos] != ',' && line[pos] != '}')
        return "expected ',' or '}' after label " + std::string(labelName) + " in " +
               std::string(sampleName);
    closed = line[pos] == '}';
    ++pos;
    return {};
}

bool hasHighBytes(std::string_view s)
{
    // Eight bytes at a time: most label values are ASCII and this runs on each.
    std::size_t i = 0;
    for (; i + 8 <= s.size(); i += 8) {
        std::uint64_t word;
        std::memcpy(&word, s.data() + i, 8);
        if (word & 0x8080808080808080ULL)
            return true;
    }
    for (; i < s.size(); ++i) {
        if (static_cast<unsigned char>(s[i]) >= 0x80)
            return true;
    }
    return false;
}

// Index of the first '"' or '\\' in `s` at or after `pos`; s.size() when none.
// Eight bytes at a time (a label value is read on every label of every line):
// a byte equal to c is a zero byte of word ^ (c * 0x01..01), and the lowest
// flagged byte of the usual zero-byte test is always a real one.
std::size_t findQuoteOrBackslash(std::string_view s, std::size_t pos)
{
    if constexpr (std::endian::native == std::endian::little) {
        constexpr std::uint64_t ones = 0x0101010101010101ULL;
        constexpr std::uint64_t highs = 0x8080808080808080ULL;
        const auto zeroBytes = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
        for (; pos + 8 <= s.size(); pos += 8) {
            std::uint64_t word;
            std::memcpy(&word, s.data() + pos, 8);
            const std::uint64_t hits =
                zeroBytes(word ^ (ones * '"')) | zeroBytes(word ^ (ones * '\\'));
            if (hits)
                return pos + static_cast<std::size_t>(std::countr_zero(hits) >> 3);
        }
    }
    while (pos < s.size() && s[pos] != '"' && s[pos] != '\\')
        ++pos;
    return pos;
}

constexpr bool isDigit(char c)
{
    return c >= '0' && c <= '9';
}

// Clinger's fast path (as in fast_float): a decimal whose digits fit in 53
// bits, scaled by 10^k with |k| <= 22, is one exact double divided or
// multiplied by another, so one IEEE operation rounds it correctly. That covers
// nearly every value an exporter writes ("6.0", "123859.0", "0.25"); false
// sends the rest (more digits, Inf, NaN, anything odd) to std::from_chars.
bool parseSimpleDecimal(std::string_view token, double &out)
{
    static constexpr double powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                        1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                        1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    constexpr std::uint64_t maxMantissa = (std::uint64_t(1) << 53) / 10 - 1;
    std::size_t i = 0;
    const bool negative = !token.empty() && token[0] == '-';
    i += negative ? 1 : 0;
    std::uint64_t mantissa = 0;
    int digits = 0;
    int scale = 0;
    for (; i < token.size() && isDigit(token[i]); ++i, ++digits) {
        if (mantissa > maxMantissa)
            return false;
        mantissa = mantissa * 10 + std::uint64_t(token[i] - '0');
    }
    if (i < token.size() && token[i] == '.') {
        for (++i; i < token.size() && isDigit(token[i]); ++i, ++digits, --scale) {
            if (mantissa > maxMantissa)
                return false;
            mantissa = mantissa * 10 + std::uint64_t(token[i] - '0');
        }
    }
    if (digits == 0)
        return false;
    if (i < token.size() && (token[i] == 'e' || token[i] == 'E')) {
        ++i;
        const bool negativeExponent = i < token.size() && token[i] == '-';
        i += i < token.size() && (token[i] == '-' || token[i] == '+') ? 1 : 0;
        int exponent = 0;
        int exponentDigits = 0;
        for (; i < token.size() && isDigit(token[i]); ++i, ++exponentDigits) {
            if (exponent > 1000)
                return false;
            exponent = exponent * 10 + (token[i] - '0');
        }
        if (exponentDigits == 0)
            return false;
        scale += negativeExponent ? -exponent : exponent;
    }
    if (i != token.size() || scale < -22 || scale > 22)
        return false;
    double value = static_cast<double>(mantissa);
    value = scale < 0 ? value / powers[-scale] : value * powers[scale];
    out = negative ? -value : value;
    return true;
}

} // namespace

bool parseValue(std::string_view token, double &out)
{
    // from_chars rejects a leading '+', which Go (and so every exporter's
    // "+Inf") uses; it accepts "inf", "infinity" and "nan" in any case like Go.
    if (!token.empty() && token[0] == '+') {
        token.remove_prefix(1);
        if (!token.empty() && (token[0] == '-' || token[0] == '+'))
            return false;
    }
    if (token.empty())
        return false;
    if (parseSimpleDecimal(token, out))
        return true;
    const char *end = token.data() + token.size();
    const auto [ptr, ec] = std::from_chars(token.data(), end, out, std::chars_format::general);
    return ec == std::errc() && ptr == end;
}

bool parseSecondsAsMs(std::string_view token, int64_t &outMs)
{
    double seconds = 0;
    if (!parseValue(token, seconds) || !std::isfinite(seconds))
        return false;
    const double ms = std::round(seconds * 1000.0);
    // 9.2e18 is the int64 limit; stay clear of it instead of overflowing.
    if (std::fabs(ms) >= 9.0e18)
        return false;
    outMs = static_cast<int64_t>(ms);
    return true;
}

SampleLineParser::SampleLineParser(PageFormat format, PageArena &arena, LabelInterner &labels)
    : m_openMetrics(format == PageFormat::OpenMetrics), m_arena(arena), m_interner(labels)
{
}

std::string SampleLineParser::parse(std::string_view line, Sample &out,
                                    std::vector<std::string> &notes)
{
    // The name of the line before, when this line starts with it, needs no
    // scan: it was checked then.
    std::string_view name;
    if (const std::size_t n = m_lastName.size(); n > 0 && line.size() >= n &&
                                                 sameBytes(line.substr(0, n), m_lastName) &&
                                                 (line.size() == n || !isNameChar(line[n], true))) {
        name = m_lastName;
    } else {
        const std::size_t nameLen = nameLength(line, true);
        if (nameLen == 0)
            return "expected a metric name, found " + quoted(tokenAt(line, 0));
        name = line.substr(0, nameLen);
    }
    std::size_t pos = name.size();
    if (pos < line.size() && !isBlank(line[pos]) && line[pos] != '{')
        return "invalid character in metric name " + quoted(tokenAt(line, 0));
    skipBlanks(line, pos);
    std::string_view badUtf8Label;
    bool sameLabels = m_lastLabels.empty();
    m_pointers.clear();
    m_raw.clear();
    if (pos < line.size() && line[pos] == '{') {
        ++pos;
        if (std::string error = parseSampleLabels(line, pos, name, sameLabels, badUtf8Label, notes);
            !error.empty())
            return error;
        skipBlanks(line, pos);
    }

    const std::string_view valueToken = tokenAt(line, pos);
    if (valueToken.empty())
        return "missing value for " + std::string(name);
    if (!parseValue(valueToken, out.value))
        return "invalid value " + quoted(valueToken) + " for " + std::string(name);
    pos += valueToken.size();
    skipBlanks(line, pos);

    out.timestampMs.reset();
    // In OpenMetrics a '#' here starts an exemplar, not a timestamp.
    const auto atExemplar = [&] { return m_openMetrics && pos < line.size() && line[pos] == '#'; };
    if (pos < line.size() && !atExemplar()) {
        std::string_view stamp = tokenAt(line, pos);
        pos += stamp.size();
        int64_t ms = 0;
        if (m_openMetrics) {
            if (!parseSecondsAsMs(stamp, ms))
                return "invalid timestamp " + quoted(stamp) + " (expected seconds)";
        } else {
            if (stamp.size() > 1 && stamp[0] == '+' && stamp[1] != '-')
                stamp.remove_prefix(1);
            const char *end = stamp.data() + stamp.size();
            const auto [ptr, ec] = std::from_chars(stamp.data(), end, ms);
            if (ec != std::errc() || ptr != end)
                return "invalid timestamp " + quoted(stamp) + " (expected integer ms)";
        }
        out.timestampMs = ms;
        skipBlanks(line, pos);
    }
    if (atExemplar()) {
        if (std::string why = checkExemplar(line.substr(pos + 1), name); !why.empty())
            notes.push_back("malformed exemplar of " + std::string(name) + " dropped (" + why +
                            "); sample kept");
        pos = line.size();
    }
    if (pos < line.size())
        return "unexpected text after " + std::string(out.timestampMs ? "timestamp" : "value") +
               ": " + quoted(line.substr(pos));
    // Reported only once the line is otherwise well-formed, so a syntax error
    // is named as such rather than hidden behind an encoding one.
    if (!badUtf8Label.empty())
        return "invalid UTF-8 in label value of " + std::string(badUtf8Label) + " in " +
               std::string(name) + "; series dropped";

    // The line is good: only now do its name and label list take arena space.
    out.name = sameBytes(name, m_lastName) ? m_lastName : m_arena.copy(name);
    out.labels = sameLabels && m_pointers.size() == m_lastLabels.size()
                     ? m_lastLabels
                     : m_arena.copy(std::span<const Label *const>(m_pointers));
    m_lastName = out.name;
    m_lastLabels = out.labels;
    m_lastRaw.swap(m_raw);
    return {};
}

std::string SampleLineParser::parseSampleLabels(std::string_view line, std::size_t &pos,
                                                std::string_view sampleName, bool &sameAsLast,
                                                std::string_view &badUtf8Label,
                                                std::vector<std::string> &notes)
{
    const std::span<const Label *const> last = m_lastLabels.pointers();
    sameAsLast = true;
    bool anySlow = false;
    for (std::size_t i = 0;; ++i) {
        skipBlanks(line, pos);
        if (pos >= line.size())
            return "unterminated label set of " + std::string(sampleName) + " (missing '}')";
        if (line[pos] == '}') {
            ++pos;
            break;
        }
        const Label *before = i < last.size() ? last[i] : nullptr;
        const Label *label = nullptr;
        const std::size_t start = pos;
        bool plain = true;
        // Fast path: the same bytes as the label at this place on the line
        // before (from its name to its closing quote) read as the same label;
        // only labels read there without a backslash qualify, so no note
        // (unknown escape) is skipped.
        if (before && !m_lastRaw[i].empty() && line.size() - pos >= m_lastRaw[i].size() &&
            sameBytes(line.substr(pos, m_lastRaw[i].size()), m_lastRaw[i])) {
            label = before;
            pos += m_lastRaw[i].size();
            // Labels 0..i all as on the line before, whose names are distinct:
            // no duplicate possible unless a label read the slow way came first.
            if (anySlow) {
                for (const Label *l : m_pointers) {
                    if (sameBytes(l->name, label->name))
                        return "duplicate label name " + std::string(label->name) + " in " +
                               std::string(sampleName);
                }
            }
        } else {
            anySlow = true;
            // Mostly only the value changed: the name of the label before,
            // followed by '=', is that name (kept once by the interner).
            std::string_view labelName;
            bool sameName = false;
            if (before && line.size() - pos > before->name.size() &&
                line[pos + before->name.size()] == '=' &&
                sameBytes(line.substr(pos, before->name.size()), before->name)) {
                labelName = before->name;
                sameName = true;
                pos += labelName.size() + 1;
                skipBlanks(line, pos);
            } else if (std::string error = readLabelName(line, pos, sampleName, labelName);
                       !error.empty()) {
                return error;
            }
            for (const Label *l : m_pointers) {
                if (sameBytes(l->name, labelName))
                    return "duplicate label name " + std::string(labelName) + " in " +
                           std::string(sampleName);
            }
            // A value without backslash or high bytes: a view, no checks left.
            std::string_view value;
            const std::size_t close = pos < line.size() && line[pos] == '"'
                                          ? findQuoteOrBackslash(line, pos + 1)
                                          : line.size();
            if (close < line.size() && line[close] == '"' &&
                !hasHighBytes(line.substr(pos + 1, close - pos - 1))) {
                value = line.substr(pos + 1, close - pos - 1);
                pos = close + 1;
            } else if (std::string error = readLabelValue(line, pos, sampleName, labelName, value,
                                                          plain, badUtf8Label, notes);
                       !error.empty()) {
                return error;
            }
            sameName = sameName || (before && sameBytes(before->name, labelName));
            if (sameName && sameBytes(before->value, value))
                label = before;
            else
                label =
                    m_interner.intern(sameName ? before->name : m_interner.name(labelName), value);
        }
        sameAsLast = sameAsLast && label == before;
        m_pointers.push_back(label);
        m_raw.push_back(plain ? line.substr(start, pos - start) : std::string_view());
        bool closed = false;
        if (std::string error = readLabelEnd(line, pos, sampleName, label->name, closed);
            !error.empty())
            return error;
        if (closed)
            break;
    }
    sameAsLast = sameAsLast && m_pointers.size() == last.size();
    return {};
}

std::string SampleLineParser::readLabelName(std::string_view line, std::size_t &pos,
                                            std::string_view sampleName,
                                            std::string_view &labelName)
{
    const std::size_t nameLen = nameLength(line.substr(pos), false);
    if (nameLen == 0)
        return "invalid label name " + quoted(tokenAt(line, pos)) + " in " +
               std::string(sampleName);
    labelName = line.substr(pos, nameLen);
    pos += nameLen;
    skipBlanks(line, pos);
    if (pos >= line.size() || line[pos] != '=')
        return "expected '=' after label name " + std::string(labelName) + " in " +
               std::string(sampleName);
    ++pos;
    skipBlanks(line, pos);
    return {};
}

std::string SampleLineParser::readLabelValue(std::string_view line, std::size_t &pos,
                                             std::string_view sampleName,
                                             std::string_view labelName, std::string_view &value,
                                             bool &plain, std::string_view &badUtf8Label,
                                             std::vector<std::string> &notes)
{
    std::string_view unknownEscape;
    if (std::string error = parseLabelValue(line, pos, value, plain, unknownEscape); !error.empty())
        return error + " (label " + std::string(labelName) + " of " + std::string(sampleName) + ")";
    if (!unknownEscape.empty())
        notes.push_back("unknown escape " + quoted(unknownEscape) + " in label " +
                        std::string(labelName) + " of " + std::string(sampleName) +
                        "; kept as written");
    if (badUtf8Label.empty() && hasHighBytes(value) && !isValidUtf8(value))
        badUtf8Label = labelName;
    return {};
}

std::string SampleLineParser::parseLabels(std::string_view line, std::size_t &pos,
                                          std::string_view sampleName, std::vector<Label> &labels,
                                          std::string_view &badUtf8Label,
                                          std::vector<std::string> &notes)
{
    labels.clear();
    for (;;) {
        skipBlanks(line, pos);
        if (pos >= line.size())
            return "unterminated label set of " + std::string(sampleName) + " (missing '}')";
        if (line[pos] == '}') {
            ++pos;
            break;
        }
        std::string_view labelName;
        if (std::string error = readLabelName(line, pos, sampleName, labelName); !error.empty())
            return error;
        for (const Label &l : labels) {
            if (l.name == labelName)
                return "duplicate label name " + std::string(labelName) + " in " +
                       std::string(sampleName);
        }
        std::string_view value;
        bool plain = true;
        if (std::string error =
                readLabelValue(line, pos, sampleName, labelName, value, plain, badUtf8Label, notes);
            !error.empty())
            return error;
        labels.push_back({labelName, value});
        bool closed = false;
        if (std::string error = readLabelEnd(line, pos, sampleName, labelName, closed);
            !error.empty())
            return error;
        if (closed)
            break;
    }
    return {};
}

std::string SampleLineParser::parseLabelValue(std::string_view line, std::size_t &pos,
                                              std::string_view &value, bool &plain,
                                              std::string_view &unknownEscape)
{
    if (pos >= line.size() || line[pos] != '"')
        return "expected '\"' to open label value";
    ++pos;
    const std::size_t start = pos;
    // Fast path: most values have no escapes and are a view into the line.
    std::size_t stop = findQuoteOrBackslash(line, start);
    if (stop < line.size() && line[stop] == '"') {
        value = line.substr(start, stop - start);
        plain = true;
        pos = stop + 1;
        return {};
    }
    // Find the closing quote first: the raw length bounds the unescaped one.
    while (stop < line.size() && line[stop] != '"') {
        if (line[stop] == '\\') {
            if (stop + 1 >= line.size())
                return "unterminated label value";
            stop += 2;
        } else {
            ++stop;
        }
        stop = findQuoteOrBackslash(line, stop);
    }
    if (stop >= line.size())
        return "unterminated label value";
    char *const out = m_arena.allocateBytes(stop - start);
    std::size_t length = 0;
    for (std::size_t i = start; i < stop; ++i) {
        const char c = line[i];
        if (c != '\\') {
            out[length++] = c;
            continue;
        }
        const char next = line[i + 1];
        if (next == 'n') {
            out[length++] = '\n';
        } else if (next == '\\' || next == '"') {
            out[length++] = next;
        } else {
            out[length++] = c;
            out[length++] = next;
            if (unknownEscape.empty())
                unknownEscape = line.substr(i, 2);
        }
        ++i;
    }
    value = std::string_view(out, length);
    plain = false;
    pos = stop + 1;
    return {};
}

std::string SampleLineParser::checkExemplar(std::string_view rest, std::string_view sampleName)
{
    // OpenMetrics 1.0, "Exemplars": `# {labels} value [timestamp]`, the label
    // set at most 128 UTF-8 characters. The labels are checked, not kept.
    std::size_t pos = 0;
    skipBlanks(rest, pos);
    if (pos >= rest.size() || rest[pos] != '{')
        return "expected '{' after '#'";
    ++pos;
    std::string_view badUtf8Label;
    std::vector<std::string> ignored;
    if (std::string error =
            parseLabels(rest, pos, sampleName, m_exemplarLabels, badUtf8Label, ignored);
        !error.empty())
        return error;
    if (!badUtf8Label.empty())
        return "invalid UTF-8 in label " + std::string(badUtf8Label);
    std::size_t characters = 0;
    const auto count = [&](std::string_view bytes) {
        for (const char c : bytes)
            characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
    };
    for (const Label &l : m_exemplarLabels) {
        count(l.name);
        count(l.value);
    }
    if (characters > 128)
        return "label set of " + std::to_string(characters) + " characters, over 128";
    skipBlanks(rest, pos);
    const std::string_view valueToken = tokenAt(rest, pos);
    double value = 0;
    if (!parseValue(valueToken, value))
        return valueToken.empty() ? "missing value" : "invalid value " + quoted(valueToken);
    pos += valueToken.size();
    skipBlanks(rest, pos);
    if (pos < rest.size()) {
        const std::string_view stamp = tokenAt(rest, pos);
        int64_t ms = 0;
        if (!parseSecondsAsMs(stamp, ms))
            return "invalid timestamp " + quoted(stamp);
        pos += stamp.size();
        skipBlanks(rest, pos);
        if (pos < rest.size())
            return "unexpected text " + quoted(rest.substr(pos));
    }
    return {};
}

} // namespace opsdeck::metrics::detail
