#pragma once

#include "histogram.h"

#include <string>
#include <utility>
#include <vector>

namespace opsdeck::sim {

/// Writes Prometheus text exposition (format 0.0.4) the way the real
/// exporters do, so parsers see the same bytes as in production:
///  - Style::Python: SGLang's prometheus_client. Values via floatToGoString
///    ("162.0", "0.28", "8.128902e+06"); histogram `le` label last.
///  - Style::Rust: the SGLang router's metrics-exporter-prometheus. Integral
///    values without a fraction ("13"), others shortest ("0.25").
/// Labels are written in the order given; callers pass them sorted. Not thread-safe.
class PromWriter
{
public:
    enum class Style
    {
        Python,
        Rust
    };
    using Labels = std::vector<std::pair<std::string, std::string>>;

    explicit PromWriter(Style style) : m_style(style) {}

    /// `# HELP` and `# TYPE` lines; `type` is counter, gauge or histogram.
    void family(const std::string &name, const char *type, const std::string &help);
    void sample(const std::string &name, const Labels &labels, double value);
    /// `_bucket` lines (cumulative, `le` last, ending with +Inf), `_count`, `_sum`.
    void histogram(const std::string &name, const Labels &labels, const Histogram &histogram);

    const std::string &text() const { return m_text; }

    std::string formatValue(double value) const;
    /// Python's repr() of a float, then Go's switch to exponents above 1e6.
    static std::string pythonFloat(double value);
    static std::string rustFloat(double value);

private:
    static std::string labelText(const Labels &labels);

    Style m_style;
    std::string m_text;
};

} // namespace opsdeck::sim
