#include "samplelineparser.h"

#include "textutil.h"

#include <algorithm>
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

std::string SampleLineParser::parse(std::string_view line, Sample &out, PageFormat format,
                                    std::vector<std::string> &notes)
{
    const bool openMetrics = format == PageFormat::OpenMetrics;
    const std::size_t nameLen = nameLength(line, true);
    if (nameLen == 0)
        return "expected a metric name, found " + quoted(tokenAt(line, 0));
    // Constructing (not assign()ing into an empty string) is the cheaper copy.
    out.name = std::string(line.substr(0, nameLen));
    std::size_t pos = nameLen;
    if (pos < line.size() && !isBlank(line[pos]) && line[pos] != '{')
        return "invalid character in metric name " + quoted(tokenAt(line, 0));
    skipBlanks(line, pos);
    std::string_view badUtf8Label;
    out.labels.clear();
    if (pos < line.size() && line[pos] == '{') {
        ++pos;
        // Growing the label vector 1, 2, 4, 8 costs four allocations per
        // sample; '=' counts the labels (over-counts only for '=' in values).
        // Capped, so a garbage line of '=' cannot reserve a Label per byte.
        out.labels.reserve(std::min<std::size_t>(countByte(line.substr(pos), '='), 32));
        if (std::string error = parseLabels(line, pos, out, badUtf8Label, notes); !error.empty())
            return error;
        skipBlanks(line, pos);
    }

    const std::string_view valueToken = tokenAt(line, pos);
    if (valueToken.empty())
        return "missing value for " + out.name;
    if (!parseValue(valueToken, out.value))
        return "invalid value " + quoted(valueToken) + " for " + out.name;
    pos += valueToken.size();
    skipBlanks(line, pos);

    out.timestampMs.reset();
    // In OpenMetrics a '#' here starts an exemplar, not a timestamp.
    const auto atExemplar = [&] { return openMetrics && pos < line.size() && line[pos] == '#'; };
    if (pos < line.size() && !atExemplar()) {
        std::string_view stamp = tokenAt(line, pos);
        pos += stamp.size();
        int64_t ms = 0;
        if (openMetrics) {
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
        if (std::string why = checkExemplar(line.substr(pos + 1), out.name); !why.empty())
            notes.push_back("malformed exemplar of " + out.name + " dropped (" + why +
                            "); sample kept");
        pos = line.size();
    }
    if (pos < line.size())
        return "unexpected text after " + std::string(out.timestampMs ? "timestamp" : "value") +
               ": " + quoted(line.substr(pos));
    // Reported only once the line is otherwise well-formed, so a syntax error
    // is named as such rather than hidden behind an encoding one.
    if (!badUtf8Label.empty())
        return "invalid UTF-8 in label value of " + std::string(badUtf8Label) + " in " + out.name +
               "; series dropped";
    return {};
}

std::string SampleLineParser::parseLabels(std::string_view line, std::size_t &pos, Sample &out,
                                          std::string_view &badUtf8Label,
                                          std::vector<std::string> &notes)
{
    for (;;) {
        skipBlanks(line, pos);
        if (pos >= line.size())
            return "unterminated label set of " + out.name + " (missing '}')";
        if (line[pos] == '}') {
            ++pos;
            break;
        }
        const std::size_t nameLen = nameLength(line.substr(pos), false);
        if (nameLen == 0)
            return "invalid label name " + quoted(tokenAt(line, pos)) + " in " + out.name;
        const std::string_view labelName = line.substr(pos, nameLen);
        pos += nameLen;
        skipBlanks(line, pos);
        if (pos >= line.size() || line[pos] != '=')
            return "expected '=' after label name " + std::string(labelName) + " in " + out.name;
        ++pos;
        skipBlanks(line, pos);
        for (const Label &l : out.labels) {
            if (l.name == labelName)
                return "duplicate label name " + std::string(labelName) + " in " + out.name;
        }
        Label &label = out.labels.emplace_back(Label{std::string(labelName), {}});
        std::string_view unknownEscape;
        if (std::string error = parseLabelValue(line, pos, label.value, unknownEscape);
            !error.empty())
            return error + " (label " + label.name + " of " + out.name + ")";
        if (!unknownEscape.empty())
            notes.push_back("unknown escape " + quoted(unknownEscape) + " in label " + label.name +
                            " of " + out.name + "; kept as written");
        if (badUtf8Label.empty() && hasHighBytes(label.value) && !isValidUtf8(label.value))
            badUtf8Label = labelName;
        skipBlanks(line, pos);
        if (pos >= line.size())
            return "unterminated label set of " + out.name + " (missing '}')";
        if (line[pos] == ',') {
            ++pos;
            continue;
        }
        if (line[pos] == '}') {
            ++pos;
            break;
        }
        return "expected ',' or '}' after label " + label.name + " in " + out.name;
    }
    return {};
}

std::string SampleLineParser::parseLabelValue(std::string_view line, std::size_t &pos,
                                              std::string &out, std::string_view &unknownEscape)
{
    if (pos >= line.size() || line[pos] != '"')
        return "expected '\"' to open label value";
    ++pos;
    const std::size_t start = pos;
    // Fast path: most values have no escapes; memchr finds the closing quote
    // and a second one proves no backslash precedes it, then one copy.
    const char *data = line.data();
    const auto *quote =
        static_cast<const char *>(std::memchr(data + start, '"', line.size() - start));
    const std::size_t stop = quote ? std::size_t(quote - data) : line.size();
    if (quote && !std::memchr(data + start, '\\', stop - start)) {
        out = std::string(line.substr(start, stop - start));
        pos = stop + 1;
        return {};
    }
    while (pos < line.size() && line[pos] != '"' && line[pos] != '\\')
        ++pos;
    out = std::string(line.substr(start, pos - start));
    while (pos < line.size()) {
        const char c = line[pos];
        if (c == '"') {
            ++pos;
            return {};
        }
        if (c == '\\') {
            if (pos + 1 >= line.size())
                break;
            const char next = line[pos + 1];
            if (next == 'n')
                out += '\n';
            else if (next == '\\' || next == '"')
                out += next;
            else {
                out.append(line.substr(pos, 2));
                if (unknownEscape.empty())
                    unknownEscape = line.substr(pos, 2);
            }
            pos += 2;
            continue;
        }
        out += c;
        ++pos;
    }
    return "unterminated label value";
}

std::string SampleLineParser::checkExemplar(std::string_view rest, const std::string &sampleName)
{
    // OpenMetrics 1.0, "Exemplars": `# {labels} value [timestamp]`, the label
    // set at most 128 UTF-8 characters. Read into a scratch sample: exemplars
    // are not kept, and one allocation per exemplar is cheap next to a scrape.
    std::size_t pos = 0;
    skipBlanks(rest, pos);
    if (pos >= rest.size() || rest[pos] != '{')
        return "expected '{' after '#'";
    ++pos;
    Sample scratch;
    scratch.name = sampleName;
    std::string_view badUtf8Label;
    std::vector<std::string> ignored;
    if (std::string error = parseLabels(rest, pos, scratch, badUtf8Label, ignored); !error.empty())
        return error;
    if (!badUtf8Label.empty())
        return "invalid UTF-8 in label " + std::string(badUtf8Label);
    std::size_t characters = 0;
    for (const Label &l : scratch.labels) {
        for (const char c : l.name + l.value)
            characters += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
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
