#include "samplelineparser.h"

#include "textutil.h"

#include <algorithm>
#include <charconv>

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
    for (const char c : s) {
        if (static_cast<unsigned char>(c) >= 0x80)
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

std::string SampleLineParser::parse(std::string_view line, Sample &out)
{
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
        if (std::string error = parseLabels(line, pos, out, badUtf8Label); !error.empty())
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
    if (pos < line.size()) {
        std::string_view stamp = tokenAt(line, pos);
        pos += stamp.size();
        if (stamp.size() > 1 && stamp[0] == '+' && stamp[1] != '-')
            stamp.remove_prefix(1);
        int64_t ms = 0;
        const char *end = stamp.data() + stamp.size();
        const auto [ptr, ec] = std::from_chars(stamp.data(), end, ms);
        if (ec != std::errc() || ptr != end)
            return "invalid timestamp " + quoted(stamp) + " (expected integer ms)";
        out.timestampMs = ms;
        skipBlanks(line, pos);
        if (pos < line.size())
            return "unexpected text after timestamp: " + quoted(line.substr(pos));
    }
    // Reported only once the line is otherwise well-formed, so a syntax error
    // is named as such rather than hidden behind an encoding one.
    if (!badUtf8Label.empty())
        return "invalid UTF-8 in label value of " + std::string(badUtf8Label) + " in " + out.name +
               "; series dropped";
    return {};
}

std::string SampleLineParser::parseLabels(std::string_view line, std::size_t &pos, Sample &out,
                                          std::string_view &badUtf8Label)
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
        if (std::string error = parseLabelValue(line, pos, label.value); !error.empty())
            return error + " (label " + label.name + " of " + out.name + ")";
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
                                              std::string &out)
{
    if (pos >= line.size() || line[pos] != '"')
        return "expected '\"' to open label value";
    ++pos;
    const std::size_t start = pos;
    // Fast path: most values have no escapes and are copied in one go.
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
            else
                out.append(line.substr(pos, 2));
            pos += 2;
            continue;
        }
        out += c;
        ++pos;
    }
    return "unterminated label value";
}

} // namespace opsdeck::metrics::detail
