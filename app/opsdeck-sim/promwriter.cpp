#include "promwriter.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace opsdeck::sim {

void PromWriter::family(const std::string &name, const char *type, const std::string &help)
{
    m_text += "# HELP " + name + " " + help + "\n";
    m_text += "# TYPE " + name + " " + type + "\n";
}

void PromWriter::sample(const std::string &name, const Labels &labels, double value)
{
    m_text += name + labelText(labels) + " " + formatValue(value) + "\n";
}

void PromWriter::histogram(const std::string &name, const Labels &labels,
                           const Histogram &histogram)
{
    const auto counts = histogram.cumulativeCounts();
    const auto &bounds = histogram.upperBounds();
    for (size_t i = 0; i < counts.size(); ++i) {
        Labels withLe = labels;
        withLe.emplace_back("le", i < bounds.size() ? formatValue(bounds[i]) : "+Inf");
        sample(name + "_bucket", withLe, static_cast<double>(counts[i]));
    }
    sample(name + "_count", labels, static_cast<double>(histogram.count()));
    sample(name + "_sum", labels, histogram.sum());
}

std::string PromWriter::labelText(const Labels &labels)
{
    if (labels.empty())
        return {};
    std::string out = "{";
    for (size_t i = 0; i < labels.size(); ++i) {
        if (i)
            out += ',';
        out += labels[i].first + "=\"";
        for (const char c : labels[i].second) {
            if (c == '\\' || c == '"')
                out += '\\';
            if (c == '\n') {
                out += "\\n";
                continue;
            }
            out += c;
        }
        out += '"';
    }
    return out + "}";
}

std::string PromWriter::formatValue(double value) const
{
    return m_style == Style::Python ? pythonFloat(value) : rustFloat(value);
}

std::string PromWriter::pythonFloat(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == 0)
        return std::signbit(value) ? "-0.0" : "0.0";
    // Shortest round-trip digits and decimal exponent, as Python's repr finds them.
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, std::fabs(value),
                                         std::chars_format::scientific);
    const std::string sci(buffer, ec == std::errc() ? end : buffer);
    const size_t e = sci.find('e');
    std::string digits = sci.substr(0, e);
    if (digits.size() > 1)
        digits.erase(1, 1); // drop the '.'
    const int exponent = std::atoi(sci.c_str() + e + 1);
    const std::string sign = value < 0 ? "-" : "";

    if (exponent < -4 || exponent >= 16) {
        std::string mantissa = digits.substr(0, 1);
        if (digits.size() > 1)
            mantissa += "." + digits.substr(1);
        char exp[16];
        std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
        return sign + mantissa + exp;
    }
    std::string fixed;
    if (exponent >= 0) {
        const size_t intDigits = static_cast<size_t>(exponent) + 1;
        std::string intPart = digits.substr(0, std::min(intDigits, digits.size()));
        intPart.append(intDigits > digits.size() ? intDigits - digits.size() : 0, '0');
        const std::string frac = digits.size() > intDigits ? digits.substr(intDigits) : "0";
        fixed = intPart + "." + frac;
        // Go (and so prometheus_client) switches to an exponent above 6 integer digits.
        if (value > 0 && intDigits > 6) {
            std::string mantissa = fixed.substr(0, 1) + "." + intPart.substr(1) + frac;
            while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.'))
                mantissa.pop_back();
            return mantissa + "e+0" + std::to_string(intDigits - 1);
        }
    } else {
        fixed = "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return sign + fixed;
}

std::string PromWriter::rustFloat(double value)
{
    if (std::isnan(value))
        return "NaN";
    if (std::isinf(value))
        return value > 0 ? "+Inf" : "-Inf";
    if (value == std::floor(value) && std::fabs(value) < 1e15)
        return std::to_string(static_cast<long long>(value));
    char buffer[64];
    const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
    return ec == std::errc() ? std::string(buffer, end) : std::string("0");
}

} // namespace opsdeck::sim
